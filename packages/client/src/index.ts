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

export { createNodeTransport } from './transport/node.js';
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
