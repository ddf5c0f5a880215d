/**
 * The Metabase frame's URL (`/embed/dashboard/<jwt>`, `/embed/question/<jwt>`): the editable
 * parameters of its query string and the hash options of its fragment (see `embed.ts`).
 */

import { isMetabaseSlug, METABASE_EMBED_PATHS, type MetabaseParamScalar, type MetabaseResourceKind } from './embed.js';

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
