/**
 * The vendor's `/api/user` API, exactly as `shared/spec/user-group-service.md` states it.
 * One path, three methods, JSON bodies (the GET carries one too), `Authorization: Token <API_TOKEN>`.
 */

/** The only path of the vendor API, relative to its base URL. */
export const USER_API_PATH = '/api/user';

/** The scheme word of the vendor's `Authorization` header: `Authorization: Token <API_TOKEN>`. */
export const VENDOR_AUTH_SCHEME = 'Token';

/** The longest user group token accepted from the vendor or a BFF; longer is not a token. */
export const MAX_USER_GROUP_TOKEN_CHARS = 4096;

/**
 * Whether `value` is shaped like a user group token the vendor documents: opaque ids (hex, as
 * in its examples, or base64url) and compact JWT/JWE serialisations (base64url segments joined
 * by dots, some possibly empty). Only RFC 3986 unreserved characters pass, so a token that
 * passes needs no escaping in a URL, a header, HTML or a log line; markup, control characters,
 * line separators and oversized text do not.
 */
export const isUserGroupToken = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= MAX_USER_GROUP_TOKEN_CHARS && /^[\w.~-]+$/.test(value);

/** The two environments a user group id is unique within (spec §2.2). */
export const ENVIRONMENTS = ['Customer', 'Testing'] as const;
export type Environment = (typeof ENVIRONMENTS)[number];

/** Maps a schema id to a data source id (spec §2.1). Keys and values are strings. */
export type DataSourceMapping = Record<string, string>;

/** Free-form properties of a user group, available as dashboard variables (spec §2.1). */
export type UserGroupProperties = Record<string, unknown>;

/**
 * Request body of get-or-create (GET) and update (PUT). `mapping` is optional: absent, the
 * integrator does not manage the group's data sources. `/api/user` (whose spec makes the mapping
 * part of every body) is then sent `{}`; the Customer API is sent no `mapping`, so a mapping set
 * in the vendor's UI is left alone (its update changes only the fields given).
 */
export interface UserGroupInput {
  name: string;
  user_group_id: string;
  mapping?: DataSourceMapping;
  properties: UserGroupProperties;
}

/** Request body of the token operation (POST). */
export interface RotateTokenInput {
  current_token: string;
}

/** `user_group` in a get-or-create response. */
export interface UserGroup {
  /** The vendor's internal id; absent when the client speaks the Customer API, which has none. */
  team_id?: number;
  token: string;
  name: string;
  provided_id: string;
  /** Echoes the request's properties when given; may be absent or null. */
  properties?: UserGroupProperties | null;
  /** The group's mapping, when the answer carries it (the Customer API's `parent_schema_datasource_mapping`; `/api/user` never does). */
  mapping?: DataSourceMapping;
}

/** `user_group` in update and token responses: adds the environment tag. */
export interface UserGroupWithEnvironment extends UserGroup {
  api_environment_tag?: Environment | null;
}

/** Response of `GET /api/user` (get-or-create). */
export interface GetOrCreateUserGroupResponse {
  success: 1;
  new_user_group: boolean;
  user_group: UserGroup;
}

/** Response of `PUT /api/user` (update). Has no `new_user_group`. */
export interface UpdateUserGroupResponse {
  success: 1;
  user_group: UserGroupWithEnvironment;
}

/** Response of `POST /api/user` (rotate). The returned token is the one to use from now on. */
export interface RotateUserGroupTokenResponse {
  success: 1;
  user_group: Omit<UserGroupWithEnvironment, 'properties'>;
}

/** Any failed vendor call: `success` is `0`; the rest is not specified. */
export interface VendorFailureResponse {
  success: 0;
  [key: string]: unknown;
}
