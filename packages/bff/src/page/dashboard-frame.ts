import { canonicalLocale, exploSrc, isRefreshMinutes, isUserGroupToken, resolveSrc, type DashboardVariables } from '@embedded-dashboard/protocol';
import { escapeAttribute } from './markup.js';

/** The element's attributes the frame depends on, with the same names and meanings. */
export interface DashboardFrameOptions {
  /** The element's `dashboard`. */
  dashboard: string;
  /** The element's `src-template`. */
  srcTemplate: string;
  /** The element's `environment`. */
  environment?: string | undefined;
  /** The element's `protocol`: `message` (default) or `explo`. */
  protocol?: 'message' | 'explo' | undefined;
  /**
   * The first token (`renderInitialToken(...).response?.token`), needed only when it is part of
   * the URL (`protocol: 'explo'`, or `{token}` in the template). Without it such a frame is not
   * rendered (`''`): the element makes it once it has a token.
   */
  token?: string | undefined;
  /** `explo` only: the element's `variables`, which that protocol puts in the URL's query. */
  variables?: DashboardVariables | undefined;
  /** The element's `locale-code` (a BCP 47 tag): the URL's `locale_code`, canonical as the element makes it. */
  localeCode?: string | undefined;
  /** The element's `refresh-minutes` (whole minutes 1-1440): the URL's `refresh-minutes`. */
  refreshMinutes?: number | undefined;
  /** The element's `label` (the frame's accessible name); default the dashboard id. */
  label?: string | undefined;
  /** The element's `sandbox` attribute, if it has one. */
  sandbox?: string | undefined;
  /**
   * The element's `allow`, if it has one; default `fullscreen`, as the element's. The element
   * adopts the frame only when its `sandbox` and `allow` are exactly the element's.
   */
  allow?: string | undefined;
  /** The element's `loading` attribute, if it has one. */
  loading?: 'eager' | 'lazy' | undefined;
  /**
   * Render the frame shown (no `hidden`): the dashboard appears without waiting for the element's
   * script, which the page may then load late (after its `load` event) so that script's work never
   * delays the dashboard. The element keeps such a frame shown, with no skeleton over it. Use it
   * with the first token in the URL (`#token={token}` or `explo`); style its height in the page.
   */
  visible?: boolean | undefined;
}

/**
 * The dashboard iframe as markup for inside `<embedded-dashboard>`, so the browser starts loading
 * the dashboard while it parses the page, before the element's script has arrived. The element
 * adopts this frame (no second load) when its URL is exactly the one the element would build
 * from the same attributes; any other frame there is removed. Hidden (`hidden`) until the element
 * shows it.
 *
 * With our `message` protocol the URL holds no token, so the frame can be sent before the
 * server has the first token (render it first, then await `renderInitialToken`). With a token in
 * the URL (`explo`, `{token}`) pass `token`: the frame can only go out once the token is there.
 * The fastest first load with `message` is `#token={token}` at the end of the template: the
 * dashboard reads the first token from the fragment (which reaches no server) and loads its data
 * at once instead of after a message round trip; later tokens still go by message.
 *
 * Every value is escaped for an HTML attribute (and URL-encoded in the URL). Throws an `Error`
 * for a missing `dashboard`, a template that gives no absolute http(s) URL, or a `token` that is
 * no user group token: a programming error of the page, not something to render.
 *
 * @example
 * ```ts
 * const frame = renderDashboardFrame({ dashboard: 'sales', srcTemplate: 'https://dash.example.com/iframe/{dashboard}' });
 * // <iframe slot="frame" hidden src="https://dash.example.com/iframe/sales" title="sales" …></iframe>
 * ```
 */
export function renderDashboardFrame(options: DashboardFrameOptions): string {
  const { dashboard, token } = options;
  if (typeof dashboard !== 'string' || !dashboard) throw new Error('renderDashboardFrame: dashboard is required');
  if (token !== undefined && !isUserGroupToken(token)) throw new Error('renderDashboardFrame: token is not a user group token');
  const localeCode = options.localeCode === undefined ? undefined : canonicalLocale(options.localeCode);
  if (options.localeCode !== undefined && !localeCode) throw new Error('renderDashboardFrame: localeCode must be a BCP 47 language tag');
  const { refreshMinutes } = options;
  if (refreshMinutes !== undefined && !isRefreshMinutes(refreshMinutes))
    throw new Error('renderDashboardFrame: refreshMinutes must be whole minutes from 1 to 1440');
  const values = { dashboard, environment: options.environment, token, localeCode, refreshMinutes };
  let url: URL | undefined;
  try {
    url = options.protocol === 'explo' ? exploSrc(options.srcTemplate, values, options.variables ?? {}) : resolveSrc(options.srcTemplate, values);
  } catch (error) {
    throw new Error(`renderDashboardFrame: ${(error as Error).message}`, { cause: error });
  }
  if (!url) return '';
  const extra = [
    options.sandbox === undefined ? '' : ` sandbox="${escapeAttribute(options.sandbox)}"`,
    options.loading === undefined ? '' : ` loading="${escapeAttribute(options.loading)}"`,
  ].join('');
  return `<iframe slot="frame"${options.visible ? '' : ' hidden'} src="${escapeAttribute(url.href)}" title="${escapeAttribute(options.label || dashboard)}" allow="${escapeAttribute(options.allow ?? 'fullscreen')}" referrerpolicy="strict-origin"${extra}></iframe>`;
}
