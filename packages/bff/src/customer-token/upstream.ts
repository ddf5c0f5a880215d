import type {
  ExploGenerateJwtInput,
  ExploGenerateJwtResponse,
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UpstreamApiName,
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
   * Optional: the vendor mints an embed token (the Customer API's `generate_jwt`), for
   * `embedToken.mint: 'vendor'`. `UserGroupClient` has it with `api: 'explo-customer'`.
   */
  generateJwt?(input: ExploGenerateJwtInput, options?: UpstreamCallOptions): Promise<ExploGenerateJwtResponse>;
  /** Optional: which vendor API the calls speak (`UserGroupClient.api`); only `explo-customer` has `generate_jwt`. */
  readonly api?: UpstreamApiName;
  /**
   * A short, non-secret id of the vendor account (base URL and API token) the calls are made
   * as; `UserGroupClient` has it. Store keys and entries are scoped to it, so BFFs of different
   * accounts sharing a store never hand out each other's tokens. Never the API token itself.
   */
  readonly accountId?: string;
}
