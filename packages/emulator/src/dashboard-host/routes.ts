import { Hono, type Context } from 'hono';
import { EmulatorErrorCode, MAX_DASHBOARD_HEIGHT, MIN_DASHBOARD_HEIGHT, VARIABLE_LIMITS, isCompactJwe } from '@embedded-dashboard/protocol';
import { isValidDashboardId } from './dashboard-id.js';
import { embedTokenRoutes, type RenderPage } from './embed-token-routes.js';
import { jsonError } from './json-error.js';
import { resolveDashboardHostOptions, type DashboardHostOptions } from './options.js';
import { DEFAULT_DETAIL_ROWS, MAX_DETAIL_ROWS } from './page/dashboard-data.js';
import { dashboardPageHtml, errorPageHtml } from './page/html.js';
import { buildDashboardData, dashboardLayout, singleChart } from './sample-data/build-data.js';
import { SAMPLE_DASHBOARD_CONTENT } from './sample-data/sample-dashboards.js';
import { DATA_SECURITY_HEADERS, createNonce, pageSecurityHeaders } from './security-headers.js';

/** Visible ASCII, no spaces: what a bearer token can be (an embed token is up to 4096). Longer ones are refused unread. */
const BEARER = /^Bearer ([\x21-\x7e]{1,4096})$/i;
const BEARER_TOKEN = /^[\x21-\x7e]{1,1024}$/;

/**
 * The emulator's embeddable dashboard host (ARCHITECTURE §6, §7): `GET /iframe/:dashboardId`
 * serves a self-contained page that speaks the element protocol,
 * `GET /iframe/:dashboardId/:customerToken/:environment?` the same page speaking the vendor's
 * documented embed (token in the URL, the vendor's event names), and
 * `GET /iframe-data/:dashboardId` (header `Authorization: Bearer <user group token>`) answers
 * that page with the group's deterministic sample data, or 401 when the token is not accepted.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * const app = new Hono();
 * app.route('/', dashboardHostRoutes({
 *   embedOrigins: ['http://localhost:*', 'http://127.0.0.1:*'],
 *   resolveToken: (token) => store.groupByToken(token),
 * }));
 * // <iframe src="http://127.0.0.1:8790/iframe/sales-overview">
 * ```
 */
export function dashboardHostRoutes(options: DashboardHostOptions): Hono {
  const resolved = resolveDashboardHostOptions(options);
  const { embedOrigins, resolveToken, dataRefreshMs } = resolved;
  const app = new Hono();

  /**
   * The page. `vendor`: the vendor's embed, with the token from the URL and the data route's
   * path from there; an embed token's page may be framed by fewer origins (`frameAncestors`).
   */
  const page: RenderPage = (c, dashboardId, vendor) => {
    const nonce = createNonce();
    // Error pages show wherever dashboards may be framed; an embed token's page only where its iss says.
    const headers = pageSecurityHeaders(embedOrigins, nonce);
    if (!isValidDashboardId(dashboardId)) {
      return c.html(errorPageHtml('Bad dashboard id', 'Dashboard ids are lowercase letters, digits and dashes.', nonce), 400, headers);
    }
    const layout = dashboardLayout(dashboardId);
    if (!layout) return c.html(errorPageHtml('Unknown dashboard', `There is no dashboard "${dashboardId}".`, nonce), 404, headers);
    const html = dashboardPageHtml(
      layout.title,
      {
        dashboardId,
        // Relative, so the routes work wherever the emulator mounts them.
        dataUrl: vendor?.dataUrl ?? `../iframe-data/${dashboardId}`,
        embedOrigins,
        dataRefreshMs,
        minHeight: MIN_DASHBOARD_HEIGHT,
        maxHeight: MAX_DASHBOARD_HEIGHT,
        defaultDetailRows: DEFAULT_DETAIL_ROWS,
        maxDetailRows: MAX_DETAIL_ROWS,
        variableLimits: VARIABLE_LIMITS,
        layout: vendor?.chartId === undefined ? layout : singleChart(layout, vendor.chartId),
        ...(vendor && { protocol: 'explo' as const, token: vendor.token }),
        ...(vendor?.embedToken && { embedToken: vendor.embedToken }),
      },
      nonce,
    );
    return c.html(html, 200, vendor?.frameAncestors ? pageSecurityHeaders(vendor.frameAncestors, nonce) : headers);
  };

  const embed = embedTokenRoutes(resolved, page);
  app.get('/iframe/:dashboardId', function dashboardPage(c) {
    const first = c.req.param('dashboardId');
    return isCompactJwe(first) ? embed.page(c, first, 1) : page(c, first);
  });
  app.get('/iframe/:dashboardId/', function dashboardPage(c) {
    const first = c.req.param('dashboardId');
    return isCompactJwe(first) ? embed.page(c, first, 2) : page(c, first);
  });

  // The vendor's documented embed URL: /iframe/<dashboard_id>/<customer_token>/<environment>.
  // The environment (a dashboard version name such as "production") picks nothing here: the
  // emulator has one version of each sample dashboard. A token that is not one still gets the
  // page, which says so and emits the expiry event.
  const vendorPage = function vendorDashboardPage(c: Context) {
    const dashboardId = c.req.param('dashboardId') ?? '';
    const token = c.req.param('customerToken') ?? '';
    const environment = c.req.param('environment');
    // Back up over token and environment (and a trailing slash) to the data route's level.
    const ups = 2 + (environment !== undefined || c.req.path.endsWith('/') ? 1 : 0);
    // /iframe/<jwt>/<environment>: an embed token where the dashboard id and customer token go.
    // (A copy to test: `isCompactJwe` is a type guard, and a plain string that fails it is still a string.)
    if (isCompactJwe(String(dashboardId))) return environment === undefined ? embed.page(c, dashboardId, ups) : embed.notFound(c);
    return page(c, dashboardId, { token: BEARER_TOKEN.test(token) ? token : null, dataUrl: `${'../'.repeat(ups)}iframe-data/${dashboardId}` });
  };
  app.get('/iframe/:dashboardId/:customerToken', vendorPage);
  app.get('/iframe/:dashboardId/:customerToken/', vendorPage);
  app.get('/iframe/:dashboardId/:customerToken/:environment', vendorPage);

  app.get('/iframe-data/:dashboardId', function dashboardData(c) {
    const dashboardId = c.req.param('dashboardId');
    if (!isValidDashboardId(dashboardId)) return jsonError(c, 400, EmulatorErrorCode.invalidField, 'invalid dashboard id');
    if (!SAMPLE_DASHBOARD_CONTENT.has(dashboardId)) return jsonError(c, 404, EmulatorErrorCode.notFound, 'unknown dashboard');
    const token = BEARER.exec(c.req.header('Authorization') ?? '')?.[1];
    if (!token) return jsonError(c, 401, EmulatorErrorCode.unauthorized, 'a user group token is required: Authorization: Bearer <token>');
    if (isCompactJwe(token)) return embed.data(c, dashboardId, token);
    const group = resolveToken(token);
    if (!group) return jsonError(c, 401, EmulatorErrorCode.unknownToken, 'the user group token is not accepted');
    return c.json(buildDashboardData(dashboardId, group), 200, { ...DATA_SECURITY_HEADERS });
  });

  return app;
}
