/**
 * Metabase's guest (signed, formerly "static") embedding wire, as the BFF's Metabase adapter, the
 * element's Metabase protocol and the emulator's Metabase mode see it: the embed JWT's payload and
 * its checks, the frame URL (`/embed/dashboard/<jwt>`, `/embed/question/<jwt>`), the editable
 * parameters of the query string, the hash options and the window messages the frame posts to its
 * parent. Read off Metabase's documentation and public source (packages/protocol/README.md,
 * "Metabase", lists each page and file and marks what is assumed). Names, shapes and pure checks
 * only: no behaviour.
 */

import { isRecord } from '../guards.js';

/** The two kinds of item a guest embed shows; the JWT's `resource` names one of them. */
export const METABASE_RESOURCE_KINDS = ['dashboard', 'question'] as const;
export type MetabaseResourceKind = (typeof METABASE_RESOURCE_KINDS)[number];

/** The frame's path before the token, per kind (Metabase serves its single-page app there). */
export const METABASE_EMBED_PATHS: Readonly<Record<MetabaseResourceKind, string>> = {
  dashboard: '/embed/dashboard/',
  question: '/embed/question/',
};

/**
 * The JSON API the frame's app calls with the same token (`src/metabase/embedding/api/embed.clj`):
 * the item (`GET <base><token>`) and its data (`GET <base><token>/dashcard/<dashcard>/card/<card>`
 * for a dashboard, `GET <base><token>/query` for a question), the editable parameters in the query
 * string. A question is a "card" on this API.
 */
export const METABASE_EMBED_API: Readonly<Record<MetabaseResourceKind, string>> = {
  dashboard: '/api/embed/dashboard/',
  question: '/api/embed/card/',
};

/**
 * The embed JWT's checks (`src/metabase/embedding/jwt.clj` `unsign`, buddy-sign): HS256 only (buddy's
 * default algorithm; the header's `alg` must be present and not `none`), the key the embedding
 * secret's text as it is (its 64 characters as bytes, not hex-decoded: Metabase's examples pass the
 * string to `jwt.sign`), `exp` checked with 60 s of leeway (expired once `exp <= now - 60`); a token
 * without `exp` is not refused for it (buddy checks `exp` only when present; the BFF always sets one).
 */
export const METABASE_EMBED_JWT = { algorithm: 'HS256', leewaySeconds: 60, secretHexLength: 64 } as const;

/** Whether `text` is an embedding secret key Metabase accepts: 64 hexadecimal characters (a 256-bit key). */
export const isMetabaseSecret = (text: unknown): text is string => typeof text === 'string' && /^[0-9a-fA-F]{64}$/.test(text);

/**
 * An item's id in `resource`: its sequential id (a positive integer) or, on Pro/Enterprise, its
 * entity id (a 21-character NanoID of `A-Za-z0-9_-`).
 */
export type MetabaseResourceId = number | string;

/** Whether `value` can name an item in `resource`: a positive safe integer or an entity id. */
export const isMetabaseResourceId = (value: unknown): value is MetabaseResourceId =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) || (typeof value === 'string' && /^[A-Za-z0-9_-]{21}$/.test(value));

/** One scalar a parameter takes (text, number, boolean; `null` clears it). */
export type MetabaseParamScalar = string | number | boolean | null;
/** A parameter's value: a scalar or a list of them (`[]` is "no value": it turns the filter off). */
export type MetabaseParamValue = MetabaseParamScalar | readonly MetabaseParamScalar[];

/** The embed JWT's payload. `params` must always be present, even `{}`; `exp` is seconds since the epoch. */
export interface MetabaseEmbedClaims {
  resource: { dashboard: MetabaseResourceId } | { question: MetabaseResourceId };
  params: Record<string, MetabaseParamValue>;
  exp?: number;
}

/**
 * How an item's parameter (a dashboard filter's or SQL variable's slug) may be set in an embed, as
 * the publisher chose in the embed wizard (`embedding_params` on the item): `disabled` by nobody,
 * `enabled` ("Editable" in the wizard) by the token or the page but not both, `locked` only by the
 * token, which must.
 */
export const MetabaseParameterKind = { disabled: 'disabled', enabled: 'enabled', locked: 'locked' } as const;
export type MetabaseParameterKind = (typeof MetabaseParameterKind)[keyof typeof MetabaseParameterKind];

/** A parameter slug as Metabase writes one: lower-case words joined by `_`. */
export const isMetabaseSlug = (text: unknown): boolean => typeof text === 'string' && /^[a-z0-9][a-z0-9_]{0,99}$/.test(text);

/**
 * Metabase's 400 answers to a token or its parameters (the sentences of
 * `src/metabase/embedding/api/common.clj` and buddy-sign; `:slug` as Clojure prints a keyword).
 */
export const MetabaseEmbedError = {
  missingAlg: 'JWT is missing `alg`.',
  algNone: 'JWT `alg` cannot be `none`.',
  /** buddy-sign: a bad signature, another algorithm, or a token that does not parse. */
  corrupt: 'Message seems corrupt or manipulated.',
  expired: (exp: number) => `Token is expired (${exp})`,
  missingKey: (path: string) => `Token is missing value for keypath ${path}`,
  disabled: (slug: string) => `You're not allowed to specify a value for :${slug}.`,
  alreadyInToken: (slug: string) => `You can't specify a value for :${slug} if it's already set in the JWT.`,
  lockedMissing: (slug: string) => `You must specify a value for :${slug} in the JWT.`,
  lockedFromPage: (slug: string) => `You can only specify a value for :${slug} in the JWT.`,
  unknown: (slug: string) => `Unknown parameter :${slug}.`,
  embeddingDisabled: 'Embedding is not enabled for this object.',
  notFound: 'Not found.',
} as const;

/** The frame themes: `theme=night` is dark, `transparent` has no background; none is light. */
export const METABASE_THEMES = ['light', 'night', 'transparent'] as const;
export type MetabaseTheme = (typeof METABASE_THEMES)[number];

/** What `downloads` may name (besides `true`/`false`): PDF of a dashboard, a card's results (assumed: the type allows a string). */
export const METABASE_DOWNLOAD_KINDS = ['pdf', 'results'] as const;

/**
 * The hash options of the frame URL (`#bordered=true&titled=true`), read by the frame only (a
 * fragment never reaches a server): `frontend/src/metabase/public/lib/types.ts`
 * (`EmbeddingDisplayOptions`, `EmbeddingAdditionalHashOptions`) and the dashboard's
 * `refresh`. Values: booleans as `true`/`false`; `refresh` whole seconds (dashboards only);
 * `hide_parameters` a comma-separated list of slugs; `font` a font name (Pro/Enterprise);
 * `downloads` `true`/`false` or a comma list of {@link METABASE_DOWNLOAD_KINDS};
 * `hide_download_button` its older form (questions); `locale` a language tag.
 */
export const METABASE_HASH_OPTIONS = [
  'bordered',
  'titled',
  'theme',
  'refresh',
  'hide_parameters',
  'background',
  'font',
  'downloads',
  'hide_download_button',
  'locale',
] as const;
export type MetabaseHashOption = (typeof METABASE_HASH_OPTIONS)[number];

export interface MetabaseHashOptions {
  bordered?: boolean;
  titled?: boolean;
  theme?: MetabaseTheme;
  refresh?: number;
  hide_parameters?: readonly string[];
  background?: boolean;
  font?: string;
  downloads?: boolean | readonly (typeof METABASE_DOWNLOAD_KINDS)[number][];
  hide_download_button?: boolean;
  locale?: string;
}

/** The largest `refresh` we write or act on: a day (ours; Metabase's UI offers up to an hour). */
export const METABASE_MAX_REFRESH_SECONDS = 86_400;

/** A language tag `locale` may carry (BCP 47 as far as Metabase's locales go: `en`, `pt_BR`, `zh-TW`). */
export const isMetabaseLocale = (text: unknown): text is string => typeof text === 'string' && /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$/.test(text);

/** A font name `font` may carry: letters, digits, spaces and `-` (Metabase's font list is of such names). */
const isFontName = (text: string) => /^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$/.test(text);

const BOOLEAN_OPTIONS = new Set<MetabaseHashOption>(['bordered', 'titled', 'background', 'hide_download_button']);

/**
 * Writes the hash options as a fragment (`#a=b&c=d`, or `''` for none), in the order of
 * {@link METABASE_HASH_OPTIONS}. A bad value throws a `TypeError` naming the option.
 */
export function metabaseHash(options: MetabaseHashOptions): string {
  const parts: string[] = [];
  for (const name of METABASE_HASH_OPTIONS) {
    const value = options[name];
    if (value === undefined) continue;
    let text: string;
    if (BOOLEAN_OPTIONS.has(name)) {
      if (typeof value !== 'boolean') throw new TypeError(`${name} must be true or false`);
      text = String(value);
    } else if (name === 'theme') {
      if (!(METABASE_THEMES as readonly unknown[]).includes(value)) throw new TypeError(`theme must be one of ${METABASE_THEMES.join(', ')}`);
      text = value as string;
    } else if (name === 'refresh') {
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > METABASE_MAX_REFRESH_SECONDS)
        throw new TypeError(`refresh must be whole seconds from 1 to ${METABASE_MAX_REFRESH_SECONDS}`);
      text = String(value);
    } else if (name === 'hide_parameters') {
      if (!Array.isArray(value) || !value.every(isMetabaseSlug)) throw new TypeError('hide_parameters must be a list of parameter slugs');
      if (value.length === 0) continue;
      text = value.join(',');
    } else if (name === 'downloads') {
      if (typeof value === 'boolean') text = String(value);
      else if (Array.isArray(value) && value.length > 0 && value.every((kind) => (METABASE_DOWNLOAD_KINDS as readonly unknown[]).includes(kind)))
        text = value.join(',');
      else throw new TypeError(`downloads must be true, false or a list of ${METABASE_DOWNLOAD_KINDS.join(', ')}`);
    } else if (name === 'font') {
      if (typeof value !== 'string' || !isFontName(value)) throw new TypeError('font must be a font name');
      text = encodeURIComponent(value);
    } else {
      if (!isMetabaseLocale(value)) throw new TypeError('locale must be a language tag like en or pt_BR');
      text = value;
    }
    parts.push(`${name}=${text}`);
  }
  return parts.length === 0 ? '' : `#${parts.join('&')}`;
}

/**
 * Reads a frame URL's fragment as the frame does, keeping only the options and values it
 * understands (anything else is ignored, as Metabase's `parseHashOptions` leaves unknown keys
 * unused): the hash options of a frame, typed.
 */
export function parseMetabaseHash(hash: string): MetabaseHashOptions {
  const options: MetabaseHashOptions = {};
  const text = hash.startsWith('#') ? hash.slice(1) : hash;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    const name = decodeSafe(eq === -1 ? part : part.slice(0, eq));
    const value = eq === -1 ? 'true' : decodeSafe(part.slice(eq + 1));
    if (name === undefined || value === undefined) continue;
    switch (name) {
      case 'bordered':
      case 'titled':
      case 'background':
      case 'hide_download_button':
        if (value === 'true' || value === 'false') options[name] = value === 'true';
        break;
      case 'theme':
        if ((METABASE_THEMES as readonly string[]).includes(value)) options.theme = value as MetabaseTheme;
        break;
      case 'refresh':
        if (/^\d{1,6}$/.test(value) && Number(value) >= 1 && Number(value) <= METABASE_MAX_REFRESH_SECONDS) options.refresh = Number(value);
        break;
      case 'hide_parameters': {
        const slugs = value.split(',').filter(isMetabaseSlug);
        if (slugs.length > 0) options.hide_parameters = slugs;
        break;
      }
      case 'downloads':
        if (value === 'true' || value === 'false') options.downloads = value === 'true';
        else {
          const kinds = value.split(',');
          if (kinds.every((kind) => (METABASE_DOWNLOAD_KINDS as readonly string[]).includes(kind)))
            options.downloads = kinds as (typeof METABASE_DOWNLOAD_KINDS)[number][];
        }
        break;
      case 'font':
        if (isFontName(value)) options.font = value;
        break;
      case 'locale':
        if (isMetabaseLocale(value)) options.locale = value;
        break;
    }
  }
  return options;
}

function decodeSafe(text: string): string | undefined {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    return undefined;
  }
}

/**
 * The frame URL: `<site><path><token>[?<editable parameters>][#<hash options>]`. `site` is the
 * Metabase site URL (no trailing slash needed); editable parameters' starting values go in the
 * query string, a list as the key repeated (`?category=a&category=b`), as the parameters page shows.
 */
export function metabaseFrameUrl(
  site: string,
  kind: MetabaseResourceKind,
  token: string,
  options: { params?: Readonly<Record<string, MetabaseParamScalar | readonly MetabaseParamScalar[]>>; hash?: MetabaseHashOptions } = {},
): string {
  const query = new URLSearchParams();
  for (const [slug, value] of Object.entries(options.params ?? {})) {
    if (!isMetabaseSlug(slug)) throw new TypeError(`parameter ${JSON.stringify(String(slug).slice(0, 64))} is not a parameter slug`);
    for (const item of Array.isArray(value) ? value : [value]) query.append(slug, item === null ? '' : String(item));
  }
  const text = query.toString();
  const search = text === '' ? '' : `?${text}`;
  return `${site.replace(/\/+$/, '')}${METABASE_EMBED_PATHS[kind]}${token}${search}${metabaseHash(options.hash ?? {})}`;
}

/** `type` of the frame's messages to its parent (`frontend/src/metabase/lib/embed.js`). */
export const MetabaseFrameMessageType = { frame: 'frame', location: 'location' } as const;
export type MetabaseFrameMessageType = (typeof MetabaseFrameMessageType)[keyof typeof MetabaseFrameMessageType];

/**
 * The frame's size: `mode: "fit"` when the page fits the viewport (a full-height dashboard fills
 * the frame: the host should not grow it to `height`), `"normal"` when `height` (the body's scroll
 * height, CSS px) is the content's.
 */
export interface MetabaseFrameSpec {
  mode: 'fit' | 'normal';
  height: number;
}

/**
 * What the frame posts to `window.parent`, target `"*"`: `{ metabase: { type: "frame", frame } }`
 * each time its size changes (polled every 100 ms) and `{ metabase: { type: "location", location } }`
 * each time its URL changes (`location` the string properties of `window.location`: `href`,
 * `origin`, `protocol`, `host`, `hostname`, `port`, `pathname`, `search`, `hash`).
 */
export type MetabaseFrameMessage =
  | { metabase: { type: typeof MetabaseFrameMessageType.frame; frame: MetabaseFrameSpec } }
  | { metabase: { type: typeof MetabaseFrameMessageType.location; location: Readonly<Record<string, string>> } };

/** The string fields of `location` we keep (any other is dropped by {@link parseMetabaseFrameMessage}). */
export const METABASE_LOCATION_FIELDS = ['href', 'origin', 'protocol', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;

/** Largest height a frame message may state (CSS px) before it is taken as garbage; ours. */
export const METABASE_MAX_FRAME_HEIGHT = 100_000;
/** Longest `location` field we keep (characters); ours. */
const MAX_LOCATION_FIELD = 8_192;

/**
 * The frame's message, typed, or `undefined` for anything else (another window's messages, wrong
 * types, a height that is not a finite number from 0 to {@link METABASE_MAX_FRAME_HEIGHT}, a
 * prototype key). Says nothing about who sent it: the caller checks `event.source` and
 * `event.origin` (Metabase posts to `"*"`, so anyone can read these and any window can forge them).
 */
export function parseMetabaseFrameMessage(data: unknown): MetabaseFrameMessage | undefined {
  if (!isRecord(data) || !Object.hasOwn(data, 'metabase')) return undefined;
  const message = data.metabase;
  if (!isRecord(message)) return undefined;
  if (message.type === MetabaseFrameMessageType.frame) {
    const frame = message.frame;
    if (!isRecord(frame)) return undefined;
    const { mode, height } = frame;
    if (mode !== 'fit' && mode !== 'normal') return undefined;
    if (typeof height !== 'number' || !Number.isFinite(height) || height < 0 || height > METABASE_MAX_FRAME_HEIGHT) return undefined;
    return { metabase: { type: 'frame', frame: { mode, height } } };
  }
  if (message.type === MetabaseFrameMessageType.location) {
    const location = message.location;
    if (!isRecord(location)) return undefined;
    const kept: Record<string, string> = {};
    for (const field of METABASE_LOCATION_FIELDS) {
      const value = Object.hasOwn(location, field) ? location[field] : undefined;
      if (typeof value === 'string' && value.length <= MAX_LOCATION_FIELD) kept[field] = value;
    }
    return { metabase: { type: 'location', location: kept } };
  }
  return undefined;
}
