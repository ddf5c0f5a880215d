import { BFF_ROUTES, DEFAULT_BFF_BASE_PATH, isTokenResponse, withTimeout, type TokenResponse } from '@embedded-dashboard/protocol';
import { scriptJson } from './markup.js';

/** Anything that answers a fetch `Request`: the app of `createBffApp`, or your Hono app with `createEmbedRoutes` mounted. */
export interface FetchHandler {
  fetch(request: Request): Response | Promise<Response>;
}

export interface InitialTokenOptions {
  /**
   * The BFF: an app in this process (`createBffApp(...)`, or your app with `createEmbedRoutes`
   * mounted at `basePath`), or the base URL of a BFF elsewhere (`http://bff.internal:8787`).
   */
  bff: FetchHandler | string | URL;
  /** Where the token routes are mounted. Default `/embed`. */
  basePath?: string;
  /** Give up after this long and render no token (the element then fetches it). Default 1000 ms. */
  timeoutMs?: number;
}

/** The page's request, as a fetch `Request` or Node's `IncomingMessage`: only its headers are read. */
export interface PageRequest {
  headers: Headers | Record<string, string | string[] | undefined>;
}

export interface InitialToken {
  /** The token response `POST /embed/token` gave this request's session, or `undefined`. */
  response: TokenResponse | undefined;
  /**
   * `<script type="application/json">…</script>` to put inside `<embedded-dashboard>` (escaped
   * for HTML: no `<`, `>`, `&` or line separators left in it), or `''` without a token.
   */
  html: string;
  /**
   * Headers the page must be sent with: `Cache-Control: private, no-store` (no shared cache, no
   * browser cache keeps the token) and `Vary: Cookie, Authorization`.
   */
  headers: Record<string, string>;
}

/** Sent with every page that may carry a customer's token. */
export const INITIAL_TOKEN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'cache-control': 'private, no-store',
  vary: 'Cookie, Authorization',
});

const DEFAULT_TIMEOUT_MS = 1000;
/** The session travels in one of these; nothing else of the page's request is forwarded. */
const FORWARDED = ['cookie', 'authorization'] as const;

function header(request: PageRequest, name: string): string | undefined {
  const headers = request.headers;
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const value = (headers as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(value) ? value.join(name === 'cookie' ? '; ' : ', ') : value;
}

/**
 * The first dashboard token of a server-rendered page, so `<embedded-dashboard>` needs no round
 * trip before the dashboard can load. It asks the BFF's own token route for the page request's
 * session (its `Cookie` and `Authorization` headers, nothing else), so the session is verified,
 * rate-limited and answered exactly as the element's own request would be: the same customer's
 * token, never another's. Any failure (no session, expired session, vendor down, BFF slow past
 * `timeoutMs`, a malformed answer) renders no token: the page still renders and the element
 * fetches its token as usual. Never throws.
 *
 * Send the page with `headers` (`Cache-Control: private, no-store`): a CDN or the browser's
 * cache must never keep a page with a token in it. The element uses the token only while it is
 * not due for a refresh (its `expiresAt` minus `refresh-margin`, on the server's clock), then
 * keeps it fresh as usual.
 *
 * @example
 * ```ts
 * const first = await renderInitialToken(c.req.raw, { bff: app });
 * return c.html(
 *   `<embedded-dashboard dashboard="sales" src-template="…">${first.html}</embedded-dashboard>`,
 *   200,
 *   first.headers,
 * );
 * ```
 */
export async function renderInitialToken(request: PageRequest, options: InitialTokenOptions): Promise<InitialToken> {
  const headers = { ...INITIAL_TOKEN_HEADERS };
  const none: InitialToken = { response: undefined, html: '', headers };
  const forwarded: Record<string, string> = { 'content-type': 'application/json' };
  for (const name of FORWARDED) {
    const value = header(request, name);
    if (value) forwarded[name] = value;
  }
  // No session, no token: the BFF would only answer 401.
  if (forwarded.cookie === undefined && forwarded.authorization === undefined) return none;

  const path = `${options.basePath ?? DEFAULT_BFF_BASE_PATH}${BFF_ROUTES.token}`;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const ask = async (signal: AbortSignal): Promise<TokenResponse | undefined> => {
    const bff = options.bff;
    // No Origin header: a server-side call, which the BFF's origin check lets through like any non-browser caller.
    const init: RequestInit = { method: 'POST', headers: forwarded, body: '{}', signal, redirect: 'manual' };
    const answer =
      typeof bff === 'string' || bff instanceof URL
        ? await fetch(new URL(path, bff), init)
        : await bff.fetch(new Request(new URL(path, 'http://embedded-dashboard.internal'), init));
    if (answer.status !== 200) {
      await answer.body?.cancel().catch(() => undefined);
      return undefined;
    }
    const body: unknown = await answer.json();
    return isTokenResponse(body) ? body : undefined;
  };
  // Too slow or failed: the page goes out without a token, and the element asks for one itself.
  const response = await withTimeout(ask, timeoutMs, () => undefined).catch(() => undefined);
  return response === undefined
    ? none
    : {
        response,
        html: `<script type="application/json">${scriptJson({ token: response.token, expiresAt: response.expiresAt, serverTime: response.serverTime })}</script>`,
        headers,
      };
}
