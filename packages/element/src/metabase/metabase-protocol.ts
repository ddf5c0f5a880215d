import { resolveSrc, type DashboardMessage, type DashboardVariables, type SrcValues } from '@embedded-dashboard/protocol';
import type { FrameAttributes, FrameProtocol } from '../protocol/frame-protocol.js';

/**
 * Metabase's documented limit on an embedding URL (`MB_JETTY_REQUEST_HEADER_SIZE`, 8,192 bytes by
 * default): a longer frame URL is refused here rather than answered "URI too long" in the frame.
 */
export const METABASE_MAX_URL_LENGTH = 8_192;
/** Characters of the frame's reported `location.search` and `location.hash` together; longer reports are dropped. */
export const METABASE_MAX_LOCATION_LENGTH = 8_192;

/** A dashboard's numeric id, or its 21-character entity id. */
const DASHBOARD = /^(?:[1-9]\d{0,15}|[\w-]{21})$/;
/** A parameter slug (Metabase's are lowercase words joined by `_`; we take what is URL-safe). */
const SLUG = /^[\w-]{1,100}$/;
/** A `hide-parameters` list: slugs separated by commas. */
const SLUGS = /^[\w-]{1,100}(?:,[\w-]{1,100}){0,99}$/;

/** The boolean hash options, attribute → hash name: each `true` or `false` when set. */
const FLAGS: Readonly<Record<string, string>> = { bordered: 'bordered', titled: 'titled', downloads: 'downloads' };
/** `theme` values Metabase documents besides its default (light, no `theme` at all). */
const THEMES = ['night', 'transparent'];

/** An editable parameter's value as the query string carries it: a string, number or boolean, or a list of those. */
const isScalar = (v: unknown) => typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

/**
 * The frame URL (Metabase "Parameters for static embeds"): `src-template` with `{token}` (the
 * signed JWT the BFF made for this dashboard and customer), the editable parameters' values from
 * `variables` in the query (`?region=EU&region=US` for a list), then the hash options from the
 * attributes (`bordered`, `titled`, `theme`, `hide-parameters`, `downloads`) and the element's
 * own `locale-code` and `refresh-minutes` (as `locale`, and `refresh` in seconds). Locked
 * parameters are the token's alone: the element never names them.
 */
function metabaseSrc(template: string | undefined, values: SrcValues, variables: DashboardVariables, el: FrameAttributes): URL | undefined {
  if (!template?.includes('{token}')) throw new Error('src-template must hold {token} under protocol="metabase" (…/embed/dashboard/{token})');
  if (!DASHBOARD.test(values.dashboard)) throw new Error('dashboard must be a Metabase dashboard id (a number or a 21-character entity id)');
  // Every attribute is checked before the token is there: a bad one asks for none.
  const query = new URLSearchParams();
  for (const name in variables) {
    const value = variables[name];
    const list = Array.isArray(value) ? value : [value];
    if (!SLUG.test(name) || !list.every(isScalar))
      throw new Error('variables must map parameter slugs to a string, number or boolean, or a list of them, under protocol="metabase"');
    for (const item of list) query.append(name, String(item));
  }
  const hash = new URLSearchParams();
  for (const name in FLAGS) {
    const value = el.getAttribute(name);
    if (value !== null && value !== 'true' && value !== 'false') throw new Error(`${name} must be true or false`);
    if (value !== null) hash.set(FLAGS[name]!, value);
  }
  const theme = el.getAttribute('theme');
  if (theme !== null && !THEMES.includes(theme)) throw new Error(`theme must be ${THEMES.join(' or ')}`);
  if (theme !== null) hash.set('theme', theme);
  const hidden = el.getAttribute('hide-parameters');
  if (hidden !== null && !SLUGS.test(hidden)) throw new Error('hide-parameters must be parameter slugs separated by commas');
  if (hidden !== null) hash.set('hide_parameters', hidden);
  if (values.refreshMinutes !== undefined) hash.set('refresh', String(values.refreshMinutes * 60));
  if (values.localeCode !== undefined) hash.set('locale', values.localeCode);
  // A stand-in token (a JWT is at most 4,096 characters, like every token the element takes) measures the URL before the real one is there.
  const url = resolveSrc(template, { dashboard: values.dashboard, token: values.token ?? 'x'.repeat(4_096) })!;
  for (const [name] of query) url.searchParams.delete(name);
  for (const [name, value] of query) url.searchParams.append(name, value);
  // The hash is ours: one typed into the template would be read by Metabase after ours.
  url.hash = String(hash).replace(/%2C/g, ',');
  if (url.href.length > METABASE_MAX_URL_LENGTH) throw new Error(`the frame URL must be at most ${METABASE_MAX_URL_LENGTH} characters (variables too long)`);
  return values.token ? url : undefined;
}

/** The `metabase` member of a frame message, when it is an object. */
const metabase = (data: unknown): Record<string, unknown> | undefined => {
  const inner = (data as { metabase?: unknown } | null)?.metabase;
  return typeof inner === 'object' && inner !== null ? (inner as Record<string, unknown>) : undefined;
};

/**
 * `{metabase: {type: "frame", frame: {mode, height}}}`, posted by the frame each time its size
 * changes (every 100 ms it compares), as our `dashboardLoaded`: the first is the sign the new
 * frame runs (the swap, `dashboard-load`), each carries the height. `mode: "fit"` is the
 * dashboard's content height, followed both ways; `mode: "normal"` is the document's scroll
 * height, which is never less than the frame's own, so following it would only ever grow the
 * frame: the frame keeps the height it has (the remembered one, or its CSS height) and scrolls.
 * Anything else is no message of Metabase's.
 */
function parseFrame(data: unknown): DashboardMessage | undefined {
  const inner = metabase(data);
  const frame = inner?.type === 'frame' ? (inner.frame as { mode?: unknown; height?: unknown } | null) : undefined;
  const height = frame?.mode === 'fit' ? frame.height : frame?.mode === 'normal' ? 0 : undefined;
  // Height 0 is outside the element's bounds: a report that sets none.
  return Number.isFinite(height) ? { event: 'dashboardLoaded', detail: { dashboardId: '', dashboardHeight: height as number, loadTime: 0 } } : undefined;
}

/** The detail of `dashboard-location`: where the viewer took the frame (the token in its path is left out). */
export interface MetabaseLocation {
  /** The frame's query: the editable parameters' values as the viewer set them (`?region=EU&region=US`). */
  readonly search: string;
  /** The frame's hash options. */
  readonly hash: string;
  /** `search` by parameter slug: one value, or the list when the slug repeats. */
  readonly parameters: Readonly<Record<string, string | readonly string[]>>;
}

/**
 * `{metabase: {type: "location", location}}` (posted when the frame's URL changes: the viewer set
 * a filter) as `dashboard-location` `{ search, hash, parameters }` on the element: strings only,
 * within `METABASE_MAX_LOCATION_LENGTH`, slugs only as keys; never the path or `href`, which hold
 * the token. Every message of the frame is Metabase's: none is a `dashboard-custom-event`.
 */
function locationEvent(data: unknown, target: EventTarget): boolean {
  const inner = metabase(data);
  const location = inner?.type === 'location' ? (inner.location as { search?: unknown; hash?: unknown } | null) : undefined;
  const search = location?.search;
  const hash = location?.hash ?? '';
  if (typeof search !== 'string' || typeof hash !== 'string' || search.length + hash.length > METABASE_MAX_LOCATION_LENGTH) return true;
  const parameters: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(search)) {
    // `__proto__` would set the object's prototype rather than a key.
    if (!SLUG.test(name) || name === '__proto__') continue;
    const had = parameters[name];
    parameters[name] = had === undefined ? value : [had, value].flat();
  }
  const detail: MetabaseLocation = { search, hash, parameters };
  return target.dispatchEvent(new CustomEvent('dashboard-location', { detail, bubbles: true, composed: true })) || true;
}

/**
 * Metabase's signed ("static", now "guest") embed: the JWT is in the frame URL, so each renewal
 * loads the new URL in a hidden frame that replaces the visible one once it reports (`swap`); the
 * frame posts its size and location to `"*"`, which the element takes only from its own frame's
 * window at the exact origin of its URL (the frame controller checks both). Tokens are per
 * dashboard (the token request names it); the frame takes no message, so there is no `token` or
 * `variables` message: a change of `variables` loads a new frame URL, hidden until it reports.
 */
export const metabaseProtocol: FrameProtocol = {
  swap: true,
  perDashboard: true,
  src: metabaseSrc,
  lifecycle: [],
  parse: parseFrame,
  event: locationEvent,
};
