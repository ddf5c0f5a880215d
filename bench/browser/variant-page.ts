/*
 * Pages between the baseline and 4m's page, one difference at a time, for finding out where an
 * engine's time goes (issue 21 §3: Firefox's 4m). `/variant?token=…&with=a,b` serves the
 * baseline page with the named features of 4m's page added; every feature on is 4m's page (the
 * test compares both with the page server's own markup). The features:
 *
 * - `stream`: the page server sends the head, asks its in-process BFF for the first token
 *   (`renderInitialToken`), then sends the body, as 4m's server does. Without it the page is one
 *   write, made with the token the bench fetched ahead (`?token=`), as the baseline's is.
 * - `headers`: `INITIAL_TOKEN_HEADERS` (`private, no-store`, `Vary`) instead of `no-store`.
 * - `preconnect`: `<link rel="preconnect">` to the dashboard host in the head.
 * - `loader`: the head's late-element loader (`renderElementScript`) and, with `wrap`, the page
 *   logging its time once the element is ready too, as 4m's does; without it the page logs when
 *   the dashboard says it is loaded (the baseline's listener).
 * - `wrap`: the frame inside `<embedded-dashboard>` (`slot="frame"`), the first token's JSON
 *   child after it.
 * - `attrs`: the frame's attributes from `renderDashboardFrame` (`title` the dashboard id,
 *   `allow="fullscreen"`, `referrerpolicy="strict-origin"`).
 * - `fragment`: the token in the frame URL's fragment (`#token=`) instead of its query.
 */
import { INITIAL_TOKEN_HEADERS, renderElementScript } from '@embedded-dashboard/bff';

export const PAGE_FEATURES = ['stream', 'headers', 'preconnect', 'loader', 'wrap', 'attrs', 'fragment'] as const;
export type PageFeature = (typeof PAGE_FEATURES)[number];

/** Reads `with=a,b` into features; throws on an unknown name (a typo must not measure the baseline twice). */
export function parseFeatures(value: string | null): Set<PageFeature> {
  const names = (value ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(PAGE_FEATURES as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`unknown page feature(s): ${unknown.join(', ')} (known: ${PAGE_FEATURES.join(', ')})`);
  return new Set(names as PageFeature[]);
}

/** What the page server hands the builder: the pieces its own pages are made of. */
export interface VariantInputs {
  emulatorUrl: string;
  dashboard: string;
  /** The page head both pages share (the bench's timing script). */
  head: string;
  /** Runs `action` on the dashboard's own `dashboardLoaded` message. */
  onFrameLoaded: (action: string) => string;
}

/** The page's head (up to `</head>`) and a function making its body from the first token and that token's JSON child. */
export function variantPage(inputs: VariantInputs, features: ReadonlySet<PageFeature>) {
  const has = (feature: PageFeature) => features.has(feature);
  const host = new URL(inputs.emulatorUrl).origin;
  // Without `wrap` there is no element to get ready: the page logs when the dashboard says it is loaded.
  const loader = has('loader')
    ? `${inputs.onFrameLoaded(has('wrap') ? 'window.__bench.shownAt??=performance.now()' : 'loaded()')}
${has('wrap') ? `<script>addEventListener('dashboard-load',()=>{const b=window.__bench;b.ready=performance.now();loaded(b.shownAt)})</script>\n` : ''}${renderElementScript({ src: '/element.js' })}`
    : inputs.onFrameLoaded('loaded()');
  const head = `${inputs.head}${has('preconnect') ? `\n<link rel="preconnect" href="${host}">` : ''}
${loader}
</head>`;
  const template = `${inputs.emulatorUrl}/iframe/{dashboard}${has('fragment') ? '#token={token}' : '?token={token}'}`;
  const body = (token: string, json: string) => {
    const src = template.replace('{dashboard}', inputs.dashboard).replace('{token}', encodeURIComponent(token));
    const attributes = has('attrs') ? ` title="${inputs.dashboard}" allow="fullscreen" referrerpolicy="strict-origin"` : ' title="dashboard"';
    const frame = `<iframe${has('wrap') ? ' slot="frame"' : ''} src="${src}"${attributes}></iframe>`;
    const inside = has('wrap')
      ? `<embedded-dashboard dashboard="${inputs.dashboard}" src-template="${template}" token-url="/embed/token">${frame}${json}</embedded-dashboard>`
      : frame;
    return `<body>\n${inside}\n</body></html>`;
  };
  const headers: Record<string, string> = has('headers')
    ? { 'content-type': 'text/html', ...INITIAL_TOKEN_HEADERS }
    : { 'content-type': 'text/html', 'cache-control': 'no-store' };
  return { head, body, headers, stream: has('stream') };
}

/** The first token's JSON child for a page made with a token fetched ahead (no server call: `stream` off). */
export function aheadTokenJson(token: string, now = Date.now()): string {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(token)) throw new Error('token: not a user group token');
  return `<script type="application/json">${JSON.stringify({ token, expiresAt: now + 10 * 60_000, serverTime: now })}</script>`;
}
