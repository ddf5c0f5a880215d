import type { DashboardVariables } from './messages.js';

/** Values substituted into `src-template`; each is URL-encoded. */
export interface SrcValues {
  dashboard: string;
  environment?: string | undefined;
  token?: string | undefined;
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
  return url;
}

/**
 * The vendor's (Explo's) documented iframe URL: `resolveSrc`, then each variable as a JSON value
 * in the query (`?region="EU"`).
 */
export function exploSrc(template: string | undefined, values: SrcValues, variables: DashboardVariables): URL | undefined {
  const url = resolveSrc(template, values);
  for (const name in variables) url?.searchParams.set(name, JSON.stringify(variables[name]));
  return url;
}
