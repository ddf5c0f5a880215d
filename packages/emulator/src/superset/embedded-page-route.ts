/** The Superset mode's embeddable page `/embedded/<uuid>`, with its Referer check and its CSP. */
import type { Hono } from 'hono';
import { SUPERSET_ROUTES } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { normalizeUuid, type SupersetRouteContext } from './http.js';
import { embeddedPage, pageNonce } from './page.js';
import { SAMPLE_CHARTS, SAMPLE_DATASET } from './sample-data.js';

/** Flask-WTF's `same_origin`: scheme, host (case-insensitive) and port as written (none is not 80). */
function sameOrigin(referrer: string | undefined, domain: string): boolean {
  if (!referrer) return false;
  const parse = (text: string) => {
    const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#@]*@)?(\[[^\]]*\]|[^/?#:]*)(?::(\d*))?/.exec(text);
    return match ? { scheme: match[1]!.toLowerCase(), host: match[3]!.toLowerCase(), port: match[4] ? Number(match[4]) : undefined } : undefined;
  };
  const a = parse(referrer);
  const b = parse(domain);
  return !!a && !!b && a.scheme === b.scheme && a.host === b.host && a.port === b.port;
}

export function registerEmbeddedPageRoute(app: Hono<EmulatorEnv>, { config, withFaults, byUuid }: SupersetRouteContext): void {
  app.get(
    `${SUPERSET_ROUTES.embeddedPage}:uuid`,
    withFaults(
      'embeddedPage',
      () => ({}),
      async (c) => {
        const uuid = normalizeUuid(c.req.param('uuid') ?? '');
        const dashboard = uuid === undefined ? undefined : byUuid.get(uuid);
        if (!dashboard)
          return new Response('<!doctype html><title>404 Not Found</title><h1>Not Found</h1>', {
            status: 404,
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          });
        const referrer = c.req.header('referer');
        if (dashboard.allowedDomains.length > 0 && !dashboard.allowedDomains.some((domain) => sameOrigin(referrer, domain))) {
          return new Response('<!doctype html><title>403 Forbidden</title><h1>Forbidden</h1>', {
            status: 403,
            headers: { 'Content-Type': 'text/html; charset=utf-8' },
          });
        }
        const nonce = pageNonce();
        const charts = SAMPLE_CHARTS.filter((chart) => dashboard.chartIds.includes(chart.id));
        return new Response(embeddedPage({ dashboard, charts, datasetId: SAMPLE_DATASET.id, nonce }), {
          status: 200,
          headers: {
            'Content-Type': 'text/html; charset=utf-8',
            'Cache-Control': 'no-store',
            'Content-Security-Policy': `default-src 'self'; base-uri 'self'; object-src 'none'; img-src 'self' data:; style-src 'self' 'nonce-${nonce}'; script-src 'nonce-${nonce}'; connect-src 'self'; frame-ancestors ${config.frameAncestors.join(' ')}`,
            'X-Content-Type-Options': 'nosniff',
            'Referrer-Policy': 'strict-origin-when-cross-origin',
          },
        });
      },
    ),
  );
}
