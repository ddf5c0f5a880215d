import { EXPLO_IFRAME_QUERY } from './explo.js';
import type { DashboardVariables } from './variables.js';

/** Values substituted into `src-template`; each is URL-encoded. */
export interface SrcValues {
  dashboard: string;
  environment?: string | undefined;
  token?: string | undefined;
  /** The iframe's `locale_code` query parameter (a BCP 47 tag, `canonicalLocale`); replaces one the template has. */
  localeCode?: string | undefined;
  /** The iframe's `refresh-minutes` query parameter (`REFRESH_MINUTES`); replaces one the template has. */
  refreshMinutes?: number | undefined;
}

/** The data refresh cadence the frame accepts, in whole minutes: at least once a day, at most once a minute. */
export const REFRESH_MINUTES = { min: 1, max: 1440 } as const;

/** Whether `value` is a `refresh-minutes` we pass on: a whole number of minutes within `REFRESH_MINUTES`. */
export const isRefreshMinutes = (value: unknown): value is number =>
  Number.isInteger(value) && (value as number) >= REFRESH_MINUTES.min && (value as number) <= REFRESH_MINUTES.max;

/**
 * `value` as a canonical BCP 47 language tag (`Intl.getCanonicalLocales`: `en-us` → `en-US`), or
 * `undefined` when it is not one tag of at most 64 characters.
 */
export function canonicalLocale(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 64) return undefined;
  try {
    const tags = Intl.getCanonicalLocales(value);
    return tags.length === 1 ? tags[0] : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Builds the dashboard iframe's URL from `src-template` (`{dashboard}`, `{environment}`,
 * `{token}`), as `<embedded-dashboard>` does and as a server rendering its frame must (the
 * element adopts a server-rendered frame only when its URL is exactly this one). Returns
 * `undefined` while the template needs a token that has not arrived yet. Throws an `Error` with a
 * readable message when the result is not an absolute http(s) URL.
 *
 * @example
 * resolveSrc('https://dash.example.com/iframe/{dashboard}', { dashboard: 'sales' })!.href
 * // 'https://dash.example.com/iframe/sales'
 */
export function resolveSrc(template: string | undefined, values: SrcValues): URL | undefined {
  if (!template) throw new Error('src-template is required');
  if (template.includes('{token}') && !values.token) return undefined;
  const filled = template.replace(/\{(dashboard|environment|token)\}/g, (_, name: keyof SrcValues) => encodeURIComponent(values[name] ?? ''));
  let url: URL | undefined;
  try {
    url = new URL(filled);
  } catch {
    // Reported below, with the same words as a non-http(s) URL.
  }
  if (url?.protocol !== 'https:' && url?.protocol !== 'http:') throw new Error('src-template must give an absolute http(s) URL');
  return withOptions(url, values);
}

/** The documented iframe options in the query; given ones replace what the template has (the attribute wins). */
function withOptions(url: URL, values: SrcValues): URL {
  if (values.localeCode !== undefined) url.searchParams.set(EXPLO_IFRAME_QUERY.localeCode, values.localeCode);
  if (values.refreshMinutes !== undefined) url.searchParams.set(EXPLO_IFRAME_QUERY.refreshMinutes, String(values.refreshMinutes));
  return url;
}

/**
 * The vendor's (Explo's) documented iframe URL: `resolveSrc`, then each variable as a JSON value
 * in the query (`?region="EU"`, `?regions=["EU","US"]`), then the options (`locale_code`, `refresh-minutes`).
 */
export function exploSrc(template: string | undefined, values: SrcValues, variables: DashboardVariables): URL | undefined {
  const url = resolveSrc(template, { ...values, localeCode: undefined, refreshMinutes: undefined });
  for (const name in variables) url?.searchParams.set(name, JSON.stringify(variables[name]));
  // After the variables: a variable named like an option does not replace it.
  return url && withOptions(url, values);
}
