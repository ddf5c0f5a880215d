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
}

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
 * Throws an `Error` for an empty `src` or a negative or non-finite `fallbackMs`: a programming
 * error of the page, not something to render.
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
  const nonce = options.nonce === undefined ? '' : ` nonce="${escapeAttribute(options.nonce)}"`;
  if (after === 'now') return `<script type="module"${nonce} src="${escapeAttribute(src)}"></script>`;
  if (after !== 'dashboard') throw new Error(`renderElementScript: after must be 'dashboard' or 'now'`);
  const load =
    `const s=document.createElement('script');s.type='module';s.src=${scriptJson(src)};` +
    (options.nonce === undefined ? '' : `s.nonce=${scriptJson(options.nonce)};`) +
    `document.head.append(s)`;
  return (
    `<script${nonce}>{let done=false;const go=()=>{if(done)return;done=true;${load}};const q=window.embeddedDashboardMessages=[];` +
    `const on=(e)=>{if(q.length<${MAX_KEPT})q.push(e);const v=e.data&&e.data.event;if(v==='dashboardLoaded'||v==='tokenExpired'||v==='customerJwtExpired')setTimeout(go)};` +
    `addEventListener('message',on);addEventListener('load',()=>setTimeout(go,${Math.round(fallbackMs)}))}</script>`
  );
}
