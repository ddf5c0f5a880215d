import {
  isMetabaseSlug,
  isMetabaseLocale,
  parseMetabaseFrameMessage,
  resolveSrc,
  type DashboardMessage,
  type DashboardVariables,
  type MetabaseHashOption,
  type MetabaseTheme,
  type SrcValues,
} from '@embedded-dashboard/protocol';
import type { FrameAttributes, FrameProtocol } from '../protocol/frame-protocol.js';

/**
 * Metabase's documented limit on an embedding URL (`MB_JETTY_REQUEST_HEADER_SIZE`, 8,192 bytes by
 * default): a longer frame URL is refused here rather than answered "URI too long" in the frame.
 */
export const METABASE_MAX_URL_LENGTH = 8_192;
/** Characters of the frame's reported `location.search` and `location.hash` together; longer reports are dropped. */
export const METABASE_MAX_LOCATION_LENGTH = 8_192;

/** A dashboard's or question's numeric id, or its 21-character entity id (`isMetabaseResourceId`, for an attribute's text). */
const ITEM = /^(?:[1-9]\d{0,15}|[\w-]{21})$/;
/** The template's frame path: `/embed/dashboard/` or `/embed/question/` before `{token}` (`METABASE_EMBED_PATHS`). */
const EMBED_PATH = /\/embed\/(?:dashboard|question)(?=\/\{token\})/;

/** The boolean hash options, by attribute (each `true` or `false` when set). */
const FLAGS = ['bordered', 'titled', 'background'] as const satisfies readonly MetabaseHashOption[];

/** An editable parameter's value as the query string carries it: text, a number, a boolean or `null` (none). */
const isScalar = (v: unknown): v is string | number | boolean | null =>
  v === null || typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v)) || typeof v === 'boolean';

/** A `true`/`false` attribute as a boolean; `undefined` when unset. */
function flag(el: FrameAttributes, name: string): boolean | undefined {
  const value = el.getAttribute(name);
  if (value !== null && value !== 'true' && value !== 'false') throw new Error(`${name} must be true or false`);
  return value === null ? undefined : value === 'true';
}

/** The themes besides the default (`METABASE_THEMES`, by type: the bundle carries the names once). */
const THEMES: readonly MetabaseTheme[] = ['light', 'night', 'transparent'];
/** `downloads`: `true`, `false`, or a list of `METABASE_DOWNLOAD_KINDS` (`pdf`, `results`). */
const DOWNLOADS = /^(?:true|false|(?:pdf|results)(?:,(?:pdf|results))?)$/;
/** A font name as the protocol's `metabaseHash` takes one. */
const FONT = /^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$/;

/**
 * The frame URL (Metabase "Parameters for static embeds"): `src-template` with `{token}` (the
 * signed JWT the BFF made for this item and customer), for a question (the element's `chart`
 * instead of `dashboard`) its `/embed/dashboard/{token}` made `/embed/question/{token}` (and the
 * other way round for a dashboard: one template serves both), the editable parameters' values from
 * `variables` in the query (`?region=EU&region=US` for a list), then the hash options
 * (checked as `metabaseHash` of @embedded-dashboard/protocol checks them) from the attributes
 * `bordered`, `titled`, `background`, `theme`, `font`, `hide-parameters` (slugs, comma-separated)
 * and `downloads` (`true`, `false` or `pdf,results`), and the element's own `locale-code` (as
 * `locale`, `pt_BR` as Metabase names its locales) and `refresh-minutes` (as `refresh`, in
 * seconds). Locked parameters are the token's alone: the element never names them.
 */
function metabaseSrc(template: string | undefined, values: SrcValues, variables: DashboardVariables, el: FrameAttributes): URL | undefined {
  // (`test` reads an absent template as "undefined": no path.)
  if (!EMBED_PATH.test(template!)) throw new Error('src-template must hold /embed/dashboard/{token}');
  // A question is the element's `chart` (already a chart id), alone: Metabase embeds one item, so
  // one of the two, never both (nor an empty `dashboard` beside a chart; a removed one is `null`).
  // The element's core requires neither (`alone`).
  const question = el.chart;
  if (!ITEM.test(values.dashboard ?? question!) || (question && values.dashboard)) throw new Error('dashboard or chart must be a Metabase id, not both');
  // Every attribute is checked before the token is there: a bad one asks for none.
  const query = new URLSearchParams();
  for (const name in variables) {
    const value = variables[name];
    const items = Array.isArray(value) ? value : [value];
    if (!isMetabaseSlug(name) || !items.every(isScalar))
      throw new Error('variables must map parameter slugs (a-z, 0-9, _) to text, numbers, booleans, null or lists of them');
    for (const item of items) query.append(name, item === null ? '' : String(item));
  }
  const hash = new URLSearchParams();
  for (const name of FLAGS) {
    const value = flag(el, name);
    if (value !== undefined) hash.set(name, String(value));
  }
  const theme = el.getAttribute('theme');
  if (theme !== null && !THEMES.includes(theme as MetabaseTheme)) throw new Error(`theme must be one of ${THEMES.join(', ')}`);
  if (theme) hash.set('theme', theme);
  if (values.refreshMinutes) hash.set('refresh', String(values.refreshMinutes * 60));
  const hidden = el.getAttribute('hide-parameters');
  if (hidden !== null && !hidden.split(',').every(isMetabaseSlug)) throw new Error('hide-parameters must be parameter slugs separated by commas');
  if (hidden) hash.set('hide_parameters', hidden);
  const font = el.getAttribute('font');
  if (font !== null && !FONT.test(font)) throw new Error('font must be a font name');
  if (font) hash.set('font', font);
  const downloads = el.getAttribute('downloads');
  if (downloads !== null && !DOWNLOADS.test(downloads)) throw new Error('downloads must be true, false or a list of pdf, results');
  if (downloads) hash.set('downloads', downloads);
  const locale = values.localeCode?.replace(/-/g, '_');
  if (locale && !isMetabaseLocale(locale)) throw new Error('locale-code must, for Metabase, be a language tag like en or pt-BR');
  if (locale) hash.set('locale', locale);
  // A stand-in token as long as any the element takes (4,096 characters) measures the URL before the real one is there.
  const path = template!.replace(EMBED_PATH, question ? '/embed/question' : '/embed/dashboard');
  const url = resolveSrc(path, { dashboard: values.dashboard, token: values.token ?? 'x'.repeat(4_096) })!;
  for (const [name] of query) url.searchParams.delete(name);
  for (const [name, value] of query) url.searchParams.append(name, value);
  // The hash is ours: one typed into the template would be read by Metabase after ours.
  url.hash = String(hash).replace(/%2C/g, ',').replace(/\+/g, '%20');
  if (url.href.length > METABASE_MAX_URL_LENGTH) throw new Error(`the frame URL must be at most ${METABASE_MAX_URL_LENGTH} characters (variables too long)`);
  return values.token ? url : undefined;
}

/**
 * `{metabase: {type: "frame", frame: {mode, height}}}` (`parseMetabaseFrameMessage`), posted by
 * the frame each time its size changes (it compares every 100 ms), as our `dashboardLoaded`: the
 * visible frame's first is the sign it runs (`dashboard-load`), each carries the height, followed
 * both ways in either mode (in `normal` the body's scroll height; in `fit`, where the body fills
 * the frame, Metabase measures the dashboard's header and cards instead). A height of 0 is outside
 * the element's bounds: a report that sets none. A renewal's hidden frame reports while its
 * dashboard still loads, so it is swapped in once it reports the visible frame's height (`settle`).
 */
function parseFrame(data: unknown): DashboardMessage | undefined {
  const message = parseMetabaseFrameMessage(data)?.metabase;
  return message?.type === 'frame' ? { event: 'dashboardLoaded', detail: { dashboardId: '', dashboardHeight: message.frame.height, loadTime: 0 } } : undefined;
}

/** The detail of `dashboard-location`: where the viewer took the frame (the token in its path is left out). */
export interface MetabaseLocation {
  /** The frame's query: the editable parameters' values as the viewer set them (`?region=EU&region=US`). */
  readonly search: string;
  /** The frame's hash options. */
  readonly hash: string;
}

/**
 * `{metabase: {type: "location", location}}` (posted when the frame's URL changes: the viewer set
 * a filter) as `dashboard-location` `{ search, hash }` on the element (`new URLSearchParams(search)` reads
 * the parameters): strings only, within `METABASE_MAX_LOCATION_LENGTH`; never the path or `href`,
 * which hold the token. Every message of the frame is Metabase's: none is a `dashboard-custom-event`.
 */
function locationEvent(data: unknown, target: EventTarget): boolean {
  const message = parseMetabaseFrameMessage(data)?.metabase;
  const search = message?.type === 'location' ? message.location.search : undefined;
  const hash = message?.type === 'location' ? (message.location.hash ?? '') : '';
  if (search === undefined || search.length + hash.length > METABASE_MAX_LOCATION_LENGTH) return true;
  const detail: MetabaseLocation = { search, hash };
  target.dispatchEvent(new CustomEvent('dashboard-location', { detail, bubbles: true, composed: true }));
  return true;
}

/**
 * Metabase's signed ("static", now "guest") embed: the JWT is in the frame URL, so each renewal
 * loads the new URL in a hidden frame that replaces the visible one once it reports the visible
 * one's height, its dashboard laid out again (`swap`, `settle`: no frame without content); the
 * frame posts its size and location to `"*"`, which the element takes only from its own frame's
 * window at the exact origin of its URL (the frame controller checks both). Tokens are per
 * item (the token request names the dashboard, or the question as `chart`: `charts`, `alone`, so
 * `<embedded-dashboard protocol="metabase" chart="12">` shows question 12 at `/embed/question/<jwt>`,
 * its height, renewal and errors as a dashboard's); the frame takes no message, so there is no `token` or
 * `variables` message: a change of `variables` loads a new frame URL, hidden until it reports.
 */
export const metabaseProtocol: FrameProtocol = {
  swap: true,
  settle: true,
  perDashboard: true,
  charts: true,
  alone: true,
  src: metabaseSrc,
  lifecycle: [],
  parse: parseFrame,
  event: locationEvent,
};
