/**
 * Apache Superset's REST API as the BFF's Superset adapter, the client and the emulator's Superset
 * mode see it: the service account's login, the CSRF token, the guest token and its claims.
 * Read off the installed apache-superset 6.1.0 (`superset/security/api.py`,
 * `superset/security/manager.py`, `superset/security/guest_token.py`, `superset/config.py`,
 * `superset/embedded/view.py`) and Flask-AppBuilder's `security/api.py`; packages/protocol/README.md
 * lists what each shape stands on and what is ours.
 */

/** The routes, relative to the Superset base URL (`EMBED_UPSTREAM_URL`). */
export const SUPERSET_ROUTES = {
  /** Flask-AppBuilder's `POST` login: `{ username, password, provider, refresh? }` -> `{ access_token, refresh_token? }`. */
  login: '/api/v1/security/login',
  /** `POST` with the refresh token as bearer -> `{ access_token }`. */
  refresh: '/api/v1/security/refresh',
  /** `GET` with the access token: `{ result: <csrf token> }`, bound to the session cookie the answer sets. */
  csrfToken: '/api/v1/security/csrf_token/',
  /** `POST` with the access token, the CSRF token (`X-CSRFToken`) and its session cookie: `{ token }`. */
  guestToken: '/api/v1/security/guest_token/',
  /** The embeddable page of an embedded dashboard, by its embedded config's UUID (`/embedded/<uuid>`). */
  embeddedPage: '/embedded/',
} as const;

/** The header that carries the CSRF token (Flask-WTF's default header name). */
export const SUPERSET_CSRF_HEADER = 'X-CSRFToken';

/** The header a guest token rides on to Superset's API from the frame (`GUEST_TOKEN_HEADER_NAME`'s default). */
export const SUPERSET_GUEST_TOKEN_HEADER = 'X-GuestToken';

/** Superset's defaults for guest tokens (`config.py`): HS256, 300 s, `type: "guest"`. */
export const SUPERSET_GUEST_TOKEN = { algorithm: 'HS256', lifetimeSeconds: 300, type: 'guest' } as const;

/** The login body's `provider`: the service account is a database user. */
export type SupersetLoginProvider = 'db' | 'ldap';

export interface SupersetLoginRequest {
  username: string;
  password: string;
  provider: SupersetLoginProvider;
  refresh?: boolean;
}

export interface SupersetLoginResponse {
  access_token: string;
  refresh_token?: string;
}

/** `GET /api/v1/security/csrf_token/`'s answer: the signed CSRF token; its raw value rides in the session cookie the answer sets. */
export interface SupersetCsrfTokenResponse {
  result: string;
}

/** The guest user a token names (all optional at the server: `GuestTokenUser` is `total=False`). */
export interface SupersetGuestUser {
  username?: string;
  first_name?: string;
  last_name?: string;
}

/** A resource a guest token opens: only dashboards exist, named by the embedded config's UUID (or the dashboard's id). */
export interface SupersetGuestResource {
  type: 'dashboard';
  id: string;
}

/** A row-level security rule: a SQL `clause` applied to `dataset` (a dataset id), or to every dataset when absent. */
export interface SupersetRlsRule {
  clause: string;
  dataset?: number;
}

/** `POST /api/v1/security/guest_token/`'s body (`GuestTokenCreateSchema`: `resources` and `rls` required). */
export interface SupersetGuestTokenRequest {
  user: SupersetGuestUser;
  resources: SupersetGuestResource[];
  rls: SupersetRlsRule[];
}

export interface SupersetGuestTokenResponse {
  token: string;
}

/** The claims of a guest token (`create_guest_access_token`); the server refuses one without `user`, `resources`, `rls_rules` or `type: "guest"`. */
export interface SupersetGuestTokenClaims {
  user: SupersetGuestUser;
  resources: SupersetGuestResource[];
  rls_rules: SupersetRlsRule[];
  iat: number;
  exp: number;
  /** `GUEST_TOKEN_JWT_AUDIENCE`, or the server's URL host when unset; checked on every request. */
  aud: string;
  type: 'guest';
}

/** Whether `value` is an embedded dashboard's UUID as Superset writes it (lower-case, hyphenated, 36 characters). */
export const isSupersetEmbeddedUuid = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
