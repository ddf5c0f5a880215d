import * as platform from '#client-platform';
import type { NodeTransport, NodeTransportOptions } from './transport/node.js';

export { UserGroupClient, createUserGroupClient } from './client/user-group-client.js';
export type { UserGroupClientOptions, CallOptions } from './client/user-group-client.js';

export {
  UserGroupApiErrorCode,
  UserGroupApiError,
  UserGroupNetworkError,
  UserGroupTimeoutError,
  UserGroupAbortedError,
  UserGroupDeadlineError,
  UserGroupHttpStatusError,
  UserGroupRateLimitedError,
  UserGroupApiFailureError,
  UserGroupMalformedResponseError,
} from './errors/errors.js';
export type { UserGroupApiErrorOptions } from './errors/errors.js';

/**
 * The default transport on Node (and Bun, Deno): node:http / node:https with a keep-alive agent,
 * which sends the JSON body of the vendor's GET. Elsewhere it throws: use `createFetchTransport`.
 */
export const createNodeTransport: (options?: NodeTransportOptions) => NodeTransport = platform.createNodeTransport;
export { createFetchTransport } from './transport/fetch.js';
export type { FetchTransportOptions } from './transport/fetch.js';
export type { NodeTransport, NodeTransportOptions } from './transport/node.js';
export type { Transport, TransportRequest, TransportResponse } from './transport/types.js';

export { parseRetryAfter, backoffDelay } from '@embedded-dashboard/protocol';

export type {
  UserGroupInput,
  UserGroup,
  UserGroupWithEnvironment,
  GetOrCreateUserGroupResponse,
  UpdateUserGroupResponse,
  RotateUserGroupTokenResponse,
  Environment,
  ExploGenerateJwtInput,
  ExploGenerateJwtResponse,
} from '@embedded-dashboard/protocol';
