import {
  SUPERSET_CSRF_HEADER,
  SUPERSET_ROUTES,
  type SupersetGuestTokenRequest,
  type SupersetLoginProvider,
  type SupersetLoginRequest,
  parseRetryAfter,
  VENDOR_ATTEMPT_TIMEOUT_MS,
} from '@embedded-dashboard/protocol';
import { defaultTransport, sha256Hex } from '#client-platform';
import { invoke, linkedController, raceAbort } from '../transport/signals.js';
import { send } from '../transport/traced.js';
import {
  UserGroupAbortedError,
  UserGroupApiError,
  UserGroupHttpStatusError,
  UserGroupMalformedResponseError,
  UserGroupNetworkError,
  UserGroupRateLimitedError,
  UserGroupTimeoutError,
} from '../errors/errors.js';
import type { Transport, TransportResponse } from '../transport/types.js';

/** Options of {@link SupersetClient}. Invalid values throw a `TypeError` naming the option (never quoting the password). */
export interface SupersetClientOptions {
  /** Superset's base URL (http or https), e.g. `https://bi.example.com`; the API's paths are appended. */
  baseUrl: string;
  /** The service account that may grant guest tokens (`can_grant_guest_token on SecurityRestApi`). */
  username: string;
  /** Its password. Never in an error or log line. */
  password: string;
  /** The login's `provider`. Default `db`. */
  provider?: SupersetLoginProvider;
  /** Network seam. Default: node:http(s) with keep-alive. */
  transport?: Transport;
  /**
   * Per exchange, in ms: one attempt, no retries (the BFF's breaker, budget and deadline own
   * retrying). Default 3000 (`VENDOR_ATTEMPT_TIMEOUT_MS`). A first view without a stored sign-in
   * makes three exchanges; past the BFF's 8 s request deadline it is answered 504 while the work
   * goes on, and the element's retry is served by its result.
   */
  timeoutMs?: number;
  /** Clock in epoch ms, to read the tokens' `exp` against. Default `Date.now`. */
  now?: () => number;
}

/**
 * What the service account's sign-in gives: the access token (until `accessExpiresAt`), and the
 * CSRF token with the session cookie it is bound to. Flask-WTF keeps the raw CSRF value in the
 * signed session cookie and checks the header's signed token against it, so the two only work
 * together; secrets all three, kept on the server.
 */
export interface SupersetServiceSession {
  accessToken: string;
  /** The access token's own `exp`, in epoch ms. */
  accessExpiresAt: number;
  csrfToken: string;
  /** The `Cookie` header value to send back: every cookie the CSRF answer set (`session=…`). */
  cookie: string;
}

/** A guest token and its own `exp` (epoch ms). */
export interface SupersetGuestToken {
  token: string;
  expiresAt: number;
}

const MAX_TOKEN_CHARS = 16_384;

/**
 * A refusal of the service session itself (a 401 or 422: the access token expired or cannot be
 * verified; a 400 naming the CSRF token: its cookie is gone or no longer matches): signing in again may fix it, unlike any other
 * failure of the call.
 */
export class SupersetSessionRejectedError extends UserGroupHttpStatusError {
  constructor(message: string, status: number) {
    super(message, { status, retryable: false });
    this.name = 'SupersetSessionRejectedError';
  }
}

/** The `exp` of a compact JWS, in epoch ms, without verifying it (only the server that signed it can). */
export function jwtExpiresAt(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === undefined) return undefined;
  try {
    const json = atob(parts[1].replace(/-/g, '+').replace(/_/g, '/'));
    const exp = (JSON.parse(json) as { exp?: unknown }).exp;
    return typeof exp === 'number' && Number.isFinite(exp) && exp > 0 ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The cookies a `Set-Cookie` answer sets, as a `Cookie` header value (`a=1; b=2`). Transports
 * join repeated headers with `, `, and an `Expires` date holds a comma too, so a cookie is a
 * `name=value` at the start or after `, `, never after `;` (its attributes).
 */
export function cookiesOf(setCookie: string | undefined): string {
  if (setCookie === undefined) return '';
  const cookies: string[] = [];
  for (const match of setCookie.matchAll(/(?:^|,\s*)([!#$%&'*+\-.^_`|~0-9A-Za-z]+)=([^;,\s]*)/g)) cookies.push(`${match[1]}=${match[2]}`);
  return cookies.join('; ');
}

/**
 * The calls the BFF's Superset adapter makes, one exchange each: the service account's login,
 * the CSRF token (with its session cookie) and the guest token. Superset's API is Flask-AppBuilder's:
 * `POST /api/v1/security/login` answers a JWT access token (15 minutes by default,
 * `JWT_ACCESS_TOKEN_EXPIRES`); `GET /api/v1/security/csrf_token/` a signed CSRF token whose raw
 * value the answer's `session` cookie carries; `POST /api/v1/security/guest_token/` needs all
 * three, and on https also a `Referer` of the server's own origin (Flask-WTF's
 * `WTF_CSRF_SSL_STRICT`). Renewal, caching and sharing across processes are the BFF's: this
 * client keeps no state. Failures are `UserGroupApiError`s (the BFF maps them to its codes);
 * their messages name the call and status, never the password or a token.
 */
export class SupersetClient {
  /** A short, non-secret id of this Superset and service account: store keys are scoped to it. */
  readonly accountId: string;
  readonly #url: string;
  readonly #login: SupersetLoginRequest;
  readonly #transport: Transport;
  readonly #timeoutMs: number;
  readonly #now: () => number;
  readonly #referer: string | undefined;

  constructor(options: SupersetClientOptions) {
    if (typeof options !== 'object' || options === null) throw new TypeError('SupersetClient: options must be an object');
    const { baseUrl, username, password, provider = 'db', timeoutMs = VENDOR_ATTEMPT_TIMEOUT_MS } = options;
    let url: URL;
    try {
      url = new URL(baseUrl);
    } catch {
      throw new TypeError('SupersetClient: baseUrl must be an http(s) URL');
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
      throw new TypeError('SupersetClient: baseUrl must be an http(s) URL without credentials, query or fragment');
    }
    if (typeof username !== 'string' || username === '' || username.length > 256) throw new TypeError('SupersetClient: username must be 1 to 256 characters');
    if (typeof password !== 'string' || password === '' || password.length > 1024) throw new TypeError('SupersetClient: password must be 1 to 1024 characters');
    if (provider !== 'db' && provider !== 'ldap') throw new TypeError('SupersetClient: provider must be "db" or "ldap"');
    if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) throw new TypeError('SupersetClient: timeoutMs must be a positive integer');
    if (options.transport !== undefined && typeof options.transport !== 'function') throw new TypeError('SupersetClient: transport must be a function');
    this.#url = url.href.replace(/\/+$/, '');
    this.#login = { username, password, provider, refresh: false };
    this.#transport = options.transport ?? defaultTransport(4);
    this.#timeoutMs = timeoutMs;
    this.#now = options.now ?? Date.now;
    this.#referer = url.protocol === 'https:' ? `${url.origin}/` : undefined;
    this.accountId = sha256Hex(`superset\n${this.#url}\n${username}`).slice(0, 16);
  }

  /** Logs the service account in and fetches a CSRF token with its cookie. */
  async signIn(signal?: AbortSignal): Promise<SupersetServiceSession> {
    const login = await this.#json('login', 'POST', SUPERSET_ROUTES.login, { 'Content-Type': 'application/json' }, JSON.stringify(this.#login), signal);
    const accessToken = (login.body as { access_token?: unknown }).access_token;
    const accessExpiresAt = typeof accessToken === 'string' ? jwtExpiresAt(accessToken) : undefined;
    if (typeof accessToken !== 'string' || accessToken.length > MAX_TOKEN_CHARS || accessExpiresAt === undefined) {
      throw new UserGroupMalformedResponseError('Superset login answered no access token with an exp');
    }
    const csrf = await this.#json('CSRF token', 'GET', SUPERSET_ROUTES.csrfToken, { Authorization: `Bearer ${accessToken}` }, '', signal);
    const csrfToken = (csrf.body as { result?: unknown }).result;
    const cookie = cookiesOf(csrf.headers['set-cookie']);
    if (typeof csrfToken !== 'string' || csrfToken === '' || csrfToken.length > MAX_TOKEN_CHARS || /[^\x21-\x7e]/.test(csrfToken)) {
      throw new UserGroupMalformedResponseError('Superset answered no CSRF token');
    }
    if (cookie === '') throw new UserGroupMalformedResponseError('Superset answered the CSRF token without the session cookie it is bound to');
    return { accessToken, accessExpiresAt, csrfToken, cookie };
  }

  /** A guest token from Superset for `request`, with its own `exp`. */
  async guestToken(session: SupersetServiceSession, request: SupersetGuestTokenRequest, signal?: AbortSignal): Promise<SupersetGuestToken> {
    const headers: Record<string, string> = {
      Authorization: `Bearer ${session.accessToken}`,
      [SUPERSET_CSRF_HEADER]: session.csrfToken,
      Cookie: session.cookie,
      'Content-Type': 'application/json',
    };
    if (this.#referer !== undefined) headers.Referer = this.#referer;
    const answer = await this.#json('guest token', 'POST', SUPERSET_ROUTES.guestToken, headers, JSON.stringify(request), signal);
    const token = (answer.body as { token?: unknown }).token;
    const expiresAt = typeof token === 'string' && token.length <= MAX_TOKEN_CHARS ? jwtExpiresAt(token) : undefined;
    if (typeof token !== 'string' || expiresAt === undefined) throw new UserGroupMalformedResponseError('Superset answered no guest token with an exp');
    if (expiresAt <= this.#now()) throw new UserGroupMalformedResponseError('Superset answered a guest token that has already expired (clock skew?)');
    return { token, expiresAt };
  }

  async #json(
    what: string,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string,
    scope: AbortSignal | undefined,
  ): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
    const response = await this.#exchange(what, method, path, { ...headers, Accept: 'application/json' }, body, scope);
    const { status } = response;
    if (status === 429) {
      throw new UserGroupRateLimitedError(`Superset ${what}: HTTP 429`, {
        status,
        retryAfterMs: parseRetryAfter(response.headers['retry-after'], this.#now()),
      });
    }
    // Flask-JWT-Extended answers 401 for an expired access token and 422 for one it cannot verify
    // (a Superset restarted with another SECRET_KEY): signing in again is the cure for both.
    if ((status === 401 || status === 422) && what !== 'login') {
      throw new SupersetSessionRejectedError(`Superset ${what}: HTTP ${status} (the access token was refused)`, status);
    }
    if (status === 400 && what !== 'login' && /csrf/i.test(response.body.slice(0, 2048))) {
      throw new SupersetSessionRejectedError(`Superset ${what}: HTTP 400 (the CSRF token or its session cookie was refused)`, status);
    }
    if (status < 200 || status > 299) throw new UserGroupHttpStatusError(`Superset ${what}: HTTP ${status}`, { status });
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      throw new UserGroupMalformedResponseError(`Superset ${what}: the answer is not JSON`, { status });
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new UserGroupMalformedResponseError(`Superset ${what}: the answer is not a JSON object`, { status });
    return { body: parsed as Record<string, unknown>, headers: response.headers };
  }

  async #exchange(
    what: string,
    method: 'GET' | 'POST',
    path: string,
    headers: Record<string, string>,
    body: string,
    scope: AbortSignal | undefined,
  ): Promise<TransportResponse> {
    const attempt = linkedController([scope]);
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      attempt.controller.abort(new Error('attempt timed out'));
    }, this.#timeoutMs);
    try {
      const signal = attempt.controller.signal;
      return await raceAbort(
        invoke(() =>
          send(
            this.#transport,
            { method, url: `${this.#url}${path}`, headers, body, signal },
            { vendor: 'superset', operation: what.toLowerCase().replace(/ /g, '_'), attempt: 1 },
          ),
        ),
        signal,
      );
    } catch (caught) {
      if (timedOut) throw new UserGroupTimeoutError(`Superset ${what}: no answer within ${this.#timeoutMs} ms`);
      if (scope?.aborted === true) throw new UserGroupAbortedError(`Superset ${what}: aborted`);
      // A transport's own typed error keeps its code; its message is the transport's, which never holds the body.
      if (caught instanceof UserGroupApiError) throw caught;
      throw new UserGroupNetworkError(`Superset ${what}: ${caught instanceof Error ? caught.name : 'network failure'}`);
    } finally {
      clearTimeout(timer);
      attempt.dispose();
    }
  }
}
