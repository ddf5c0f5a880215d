import { escapeAttribute, scriptJson } from './markup.js';

/** Where and how `renderElementScript` loads the element. */
export interface ElementScriptOptions {
  /** URL of the element's module (the standalone `embedded-dashboard.js`), as the page would put it in `<script src>`. */
  src: string;
  /**
   * `dashboard` (default): load it once the server-rendered dashboard frame says it is loaded
   * (or that its token was refused), so nothing of ours runs while the dashboard loads.
   * `now`: an ordinary `<script type="module">`.
   */
  after?: 'dashboard' | 'now' | undefined;
  /** With `after: 'dashboard'`: load it anyway this long after the page's `load` event. Default 5000 ms. */
  fallbackMs?: number | undefined;
  /** The page's CSP nonce for its scripts, if it has one. */
  nonce?: string | undefined;
  /**
   * The module's subresource integrity (`sha384-…`): the browser runs it only if its bytes hash to
   * this. The standalone bundle's is in `@embedded-dashboard/element/standalone/integrity.json`.
   * Sets `crossorigin="anonymous"` with it (a module script is fetched with CORS; a CDN must answer
   * `Access-Control-Allow-Origin`).
   */
  integrity?: string | undefined;
}

/** The Trusted Types policy the deferred loader creates for the module's URL; a page's `trusted-types` directive must name it. */
export const TRUSTED_TYPES_POLICY = 'embedded-dashboard';

/** One hash of an `integrity` value (the algorithms browsers check). */
const HASH = /^sha(?:256|384|512)-[A-Za-z0-9+/]+={0,2}$/;
const MAX_INTEGRITY_LENGTH = 1024;
const isIntegrity = (value: unknown): value is string =>
  typeof value === 'string' &&
  value.trim() !== '' &&
  value.length <= MAX_INTEGRITY_LENGTH &&
  value
    .trim()
    .split(/\s+/)
    .every((hash) => HASH.test(hash));

/** Messages the loader keeps for the element (the first few a dashboard says are all it needs). */
const MAX_KEPT = 100;

/**
 * The `<script>` that loads `<embedded-dashboard>` into a page whose dashboard frame the server
 * rendered shown, with its first token in the URL (`renderDashboardFrame({ visible: true, token })`).
 * By default the element's module is loaded only when the dashboard frame says it is loaded
 * (`dashboardLoaded`) or that its token was refused (`tokenExpired`, `customerJwtExpired`), so its
 * download, parse and first render never compete with the dashboard's load; or `fallbackMs` after
 * the page's `load` event if the dashboard never says either. Until the element listens, the
 * loader keeps the page's messages (the first 100, in `window.embeddedDashboardMessages`); the
 * element replays those from its adopted frame through its usual source and origin checks, so it
 * knows the dashboard is loaded (and its height) even from a dashboard that says so only once
 * (the vendor's `explo` page). The loader itself reads only `event.data.event`, to trigger the
 * load: a message from any window can at most load the script early.
 *
 * On a locked-down page (the element README's "Content Security Policy"): pass the page's script
 * `nonce` (with `'strict-dynamic'` the loader's module is then trusted too), and the module's
 * `integrity`. Where the browser has Trusted Types, the loader sets the module's URL through a
 * policy named `embedded-dashboard` (`TRUSTED_TYPES_POLICY`) that passes that one URL only,
 * created once, when the module is loaded (never a default policy): a page with
 * `require-trusted-types-for 'script'` lists it in `trusted-types`.
 *
 * Throws an `Error` for an empty `src`, a negative or non-finite `fallbackMs` or an `integrity`
 * that is no list of sha256/384/512 hashes: a programming error of the page, not something to render.
 *
 * @example
 * ```ts
 * renderElementScript({ src: '/embedded-dashboard.js' });
 * // <script>…loads /embedded-dashboard.js once the dashboard has loaded…</script>
 * ```
 */
export function renderElementScript(options: ElementScriptOptions): string {
  const { src, after = 'dashboard', fallbackMs = 5000 } = options;
  if (typeof src !== 'string' || !src) throw new Error('renderElementScript: src is required');
  if (!(fallbackMs >= 0 && fallbackMs < Infinity)) throw new Error('renderElementScript: fallbackMs must be 0 or more milliseconds');
  const { integrity } = options;
  if (integrity !== undefined && !isIntegrity(integrity))
    throw new Error('renderElementScript: integrity must be sha256-, sha384- or sha512- hashes in base64');
  const nonce = options.nonce === undefined ? '' : ` nonce="${escapeAttribute(options.nonce)}"`;
  const pinned = integrity === undefined ? '' : ` integrity="${escapeAttribute(integrity.trim())}" crossorigin="anonymous"`;
  if (after === 'now') return `<script type="module"${nonce}${pinned} src="${escapeAttribute(src)}"></script>`;
  if (after !== 'dashboard') throw new Error(`renderElementScript: after must be 'dashboard' or 'now'`);
  // A script's src is a Trusted Types sink: where the browser has them, the URL goes through a
  // policy of ours, created here, once, when it is needed (never a default policy), that passes
  // this one URL only. Without Trusted Types it is the plain string.
  const load =
    `const s=document.createElement('script');s.type='module';` +
    (options.nonce === undefined ? '' : `s.nonce=${scriptJson(options.nonce)};`) +
    (integrity === undefined ? '' : `s.integrity=${scriptJson(integrity.trim())};s.crossOrigin='anonymous';`) +
    `const u=${scriptJson(src)},t=window.trustedTypes;` +
    `s.src=t&&t.createPolicy?t.createPolicy(${scriptJson(TRUSTED_TYPES_POLICY)},{createScriptURL:(v)=>{if(v!==u)throw new TypeError('not the element script');return v}}).createScriptURL(u):u;` +
    `document.head.append(s)`;
  return (
    `<script${nonce}>{let done=false;const go=()=>{if(done)return;done=true;${load}};const q=window.embeddedDashboardMessages=[];` +
    `const on=(e)=>{if(q.length<${MAX_KEPT})q.push(e);const v=e.data&&e.data.event;if(v==='dashboardLoaded'||v==='tokenExpired'||v==='customerJwtExpired')setTimeout(go)};` +
    `addEventListener('message',on);addEventListener('load',()=>setTimeout(go,${Math.round(fallbackMs)}))}</script>`
  );
}
