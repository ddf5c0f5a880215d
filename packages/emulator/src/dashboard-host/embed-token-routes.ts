import type { Context } from 'hono';
import { EmulatorErrorCode } from '@embedded-dashboard/protocol';
import { jsonError } from './json-error.js';
import type { ResolvedDashboardHostOptions } from './options.js';
import { errorPageHtml } from './page/html.js';
import { matchesOrigin } from './page/origin-match.js';
import type { PageConfig } from './page/page-inputs.js';
import { buildDashboardData, singleChart } from './sample-data/build-data.js';
import { DATA_SECURITY_HEADERS, createNonce, pageSecurityHeaders } from './security-headers.js';

/** How `dashboardHostRoutes` renders its page (the embed token routes render it too). */
export type RenderPage = (
  c: Context,
  dashboardId: string,
  vendor?: Pick<PageConfig, 'token' | 'embedToken'> & { dataUrl: string; frameAncestors?: string[]; chartId?: string },
) => Response | Promise<Response>;

/** The request header in which the dashboard page names the origin embedding it (checked against `iss`). */
export const EMBED_ORIGIN_HEADER = 'Embed-Origin';

/**
 * Why a frame request may not have a page for an embed token whose `iss` names `issuerOrigin`,
 * or `undefined`. The browser's own word on who frames the page: `Sec-Fetch-Dest` (a top-level
 * open is no frame) and the `Referer` of the frame request (the embedding page's origin under
 * the default referrer policy; absent under `no-referrer`). What these miss, `frame-ancestors`
 * with that origin alone makes the browser refuse (every engine enforces it, Firefox included).
 */
function framingProblem(c: Context, issuerOrigin: string, embedOrigins: readonly string[]): string | undefined {
  if (!embedOrigins.some((pattern) => matchesOrigin(pattern, issuerOrigin))) return `its iss, ${issuerOrigin}/, is not an origin allowed to embed dashboards`;
  const destination = c.req.header('Sec-Fetch-Dest');
  if (destination !== undefined && destination !== 'iframe' && destination !== 'frame') return `it is valid only inside a frame on ${issuerOrigin}`;
  const referrer = c.req.header('Referer');
  let framedBy: string | undefined;
  try {
    framedBy = referrer === undefined ? undefined : new URL(referrer).origin;
  } catch {
    framedBy = 'an unreadable origin';
  }
  if (framedBy !== undefined && framedBy !== issuerOrigin) return `it is valid only from ${issuerOrigin}, not from ${framedBy.slice(0, 200)}`;
  return undefined;
}

/**
 * The dashboard host's side of embed tokens: the page at `/iframe/<jwt>[/<environment>]` and
 * the data route's answer to a JWE bearer token. The page is served for an accepted token and
 * for an expired one (it then says `customerJwtExpired`, and the host can hand it a new token
 * without a reload); anything else gets a visible error page, never the dashboard.
 */
export function embedTokenRoutes(options: ResolvedDashboardHostOptions, page: RenderPage) {
  const { embedOrigins, resolveEmbedToken } = options;
  const refuse = (c: Context, status: 403 | 404, heading: string, message: string) => {
    const nonce = createNonce();
    return c.html(errorPageHtml(heading, message, nonce), status, pageSecurityHeaders(embedOrigins, nonce));
  };

  return {
    notFound: (c: Context) => refuse(c, 404, 'Not found', 'An embed token goes in /iframe/<jwt> or /iframe/<jwt>/<environment>.'),

    /** The page for `jwt`; `ups`: how many `../` lead from the page URL to the data route's level. */
    async page(c: Context, jwt: string, ups: number): Promise<Response> {
      if (!resolveEmbedToken) return refuse(c, 404, 'Embed tokens are not enabled', 'This dashboard host takes no embed tokens.');
      const view = await resolveEmbedToken(jwt);
      if (view.status === 'refused') return refuse(c, 403, 'This embed token is not valid', `The dashboard cannot be shown: ${view.message}.`);
      const issuerOrigin = view.issuer?.slice(0, -1);
      const problem = issuerOrigin === undefined ? undefined : framingProblem(c, issuerOrigin, embedOrigins);
      if (problem) return refuse(c, 403, 'This embed token is not valid here', `The dashboard cannot be shown: ${problem}.`);
      return page(c, view.dashboardId, {
        token: jwt,
        embedToken: { issuerOrigin: issuerOrigin ?? null },
        dataUrl: `${'../'.repeat(ups)}iframe-data/${encodeURIComponent(view.dashboardId)}`,
        ...(issuerOrigin !== undefined && { frameAncestors: [issuerOrigin] }),
        ...(view.chartId !== undefined && { chartId: view.chartId }),
      });
    },

    /**
     * The data route for a JWE bearer token: 403 for a refused token, one for another dashboard,
     * or one whose `iss` is not the origin the page names; 401 for an expired one (the page asks
     * for a new token); else the data and how long the token has left.
     */
    async data(c: Context, dashboardId: string, jwt: string): Promise<Response> {
      if (!resolveEmbedToken) return jsonError(c, 401, EmulatorErrorCode.unknownToken, 'embed tokens are not accepted here');
      const view = await resolveEmbedToken(jwt);
      if (view.status === 'refused') return jsonError(c, 403, EmulatorErrorCode.forbidden, view.message);
      if (view.dashboardId !== dashboardId) return jsonError(c, 403, EmulatorErrorCode.forbidden, 'the embed token is for another dashboard');
      if (view.issuer !== undefined && `${c.req.header(EMBED_ORIGIN_HEADER)}/` !== view.issuer) {
        return jsonError(c, 403, EmulatorErrorCode.forbidden, `the embed token is valid only from ${view.issuer}`);
      }
      if (view.status === 'expired') return jsonError(c, 401, EmulatorErrorCode.unknownToken, 'the embed token has expired');
      const data = buildDashboardData(dashboardId, view.group);
      const scoped = view.chartId === undefined || data === undefined ? data : singleChart(data, view.chartId);
      return c.json({ ...scoped, tokenExpiresInMs: view.expiresInMs }, 200, { ...DATA_SECURITY_HEADERS });
    },
  };
}
