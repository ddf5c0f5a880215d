import { isBffErrorBody, isTokenResponse, parseRetryAfter, TOKEN_REQUEST_TIMEOUT_MS, withTimeout, type TokenResponse } from '@embedded-dashboard/protocol';

/** Why a token was requested: the first one, a scheduled refresh, or a rotation the dashboard asked for. */
export type TokenReason = 'initial' | 'refresh' | 'rotate';

/**
 * A failed token request. `code` is a BFF error code (`unauthenticated`, `upstream_error`, …) or
 * one of the element's own: `network`, `timeout`, `invalid_response`, `http_<status>`.
 * Its message never contains a token.
 */
export class TokenRequestError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly retryable: boolean,
    readonly status = 0,
    /** Milliseconds the server asked to wait (`Retry-After`). */
    readonly retryAfter = 0,
  ) {
    super(message);
  }
}

/** The error of a token request that took too long. */
export const timeoutError = (): TokenRequestError => new TokenRequestError('timeout', 'Token request timed out', true);

/** Each request gives up after `TOKEN_REQUEST_TIMEOUT_MS` (the deadline budget's outermost layer). */
export interface RequestTokenOptions {
  credentials: RequestCredentials;
  /** The dashboard the token is for, when tokens are per dashboard (sent as `dashboard`). */
  dashboard?: string | undefined;
  /** One chart of it, for a single-chart token (sent as `chart`). */
  chart?: string | undefined;
  /** Extra request headers (an opt-in module's, through `TokenHost.headers`). */
  headers?: Record<string, string> | undefined;
}

async function post(url: string, held: string | undefined, options: RequestTokenOptions): Promise<TokenResponse> {
  let response: Response;
  let body: unknown;
  try {
    [response, body] = await withTimeout(
      async (signal) => {
        const r = await fetch(held ? `${url}/rotate` : url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', ...options.headers },
          // Unset fields drop out: `{}`, `{"token"}`, `{"dashboard"}` or both.
          body: JSON.stringify({ token: held, dashboard: options.dashboard, chart: options.chart }),
          credentials: options.credentials,
          signal,
        });
        return [r, (await r.json().catch(() => undefined)) as unknown] as const;
      },
      TOKEN_REQUEST_TIMEOUT_MS,
      timeoutError,
    );
  } catch (error) {
    if (error instanceof TokenRequestError) throw error;
    throw new TokenRequestError('network', 'Could not get a dashboard token', true);
  }
  const status = response.status;
  if (response.ok) {
    if (isTokenResponse(body)) return { token: body.token, expiresAt: body.expiresAt, serverTime: body.serverTime };
    throw new TokenRequestError('invalid_response', 'The token answer was not a token', false, status);
  }
  const error = isBffErrorBody(body) ? body.error : undefined;
  throw new TokenRequestError(
    error?.code ?? `http_${status}`,
    error?.message ?? `Token request failed with HTTP ${status}`,
    // 429 and 5xx are transient unless the BFF says otherwise (a vendor's refusal); every other refusal is final.
    (status === 429 || status >= 500) && error?.retryable !== false,
    status,
    parseRetryAfter(response.headers.get('Retry-After'), Date.now()) ?? 0,
  );
}

/** One request in flight per resolved token URL (and dashboard and chart, for per-dashboard tokens), shared by every element of the page. */
const inFlight = new Map<string, Promise<TokenResponse>>();

/**
 * POSTs `url` for a token, or `${url}/rotate` with `held` for a fresh one. While another caller's
 * request for the same URL, dashboard and chart is in flight, waits for it instead of sending a second
 * one, and only asks again when that answer is the very token `held` (a token this caller already
 * knows is stale).
 */
export async function requestToken(url: string, held: string | undefined, options: RequestTokenOptions): Promise<TokenResponse> {
  // A chart is part of what the token is for: two charts of one dashboard never share an answer.
  // (An absent one is empty: ids are never empty, so no chart is no chart named "undefined".)
  const key = [url, options.dashboard, options.chart].join();
  for (let pending = inFlight.get(key); pending; pending = inFlight.get(key)) {
    const shared = await pending;
    if (shared.token !== held) return shared;
  }
  const request = post(url, held, options).finally(() => inFlight.delete(key));
  inFlight.set(key, request);
  return request;
}
