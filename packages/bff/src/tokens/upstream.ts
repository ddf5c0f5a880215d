import type {
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UserGroupInput,
} from '@embedded-dashboard/protocol';

export interface UpstreamCallOptions {
  signal?: AbortSignal;
}

/**
 * The three vendor operations the BFF needs. `UserGroupClient` from `@embedded-dashboard/client`
 * is one; tests and integrators with their own client can pass any object of this shape. Its
 * failures should be `UserGroupApiError`s (or carry the same `code`/`retryable`) to map to
 * the right status; anything else becomes a 500.
 */
export interface UserGroupUpstream {
  getOrCreateUserGroup(input: UserGroupInput, options?: UpstreamCallOptions): Promise<GetOrCreateUserGroupResponse>;
  updateUserGroup(input: UserGroupInput, options?: UpstreamCallOptions): Promise<UpdateUserGroupResponse>;
  rotateUserGroupToken(currentToken: string, options?: UpstreamCallOptions): Promise<RotateUserGroupTokenResponse>;
  /**
   * A short, non-secret id of the vendor account (base URL and API token) the calls are made
   * as; `UserGroupClient` has it. Store keys and entries are scoped to it, so BFFs of different
   * accounts sharing a store never hand out each other's tokens. Never the API token itself.
   */
  readonly accountId?: string;
}
