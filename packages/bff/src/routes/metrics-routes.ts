import { Hono, type Handler } from 'hono';
import { BFF_ROUTES } from '@embedded-dashboard/protocol';
import type { BffMetrics } from '../observability/metrics.js';

const NO_STORE = { 'cache-control': 'no-store' };

/** `GET /metrics`: the Prometheus text of `metrics.registry`, `no-store`. The one handler of both ways to serve it. */
export function metricsHandler(metrics: BffMetrics): Handler {
  return async function metricsHandler() {
    const { registry } = metrics;
    return new Response(await registry.metrics(), { headers: { ...NO_STORE, 'content-type': registry.contentType } });
  };
}

/**
 * `GET /metrics` (Prometheus text of `metrics.registry`) as an app of its own, to serve on a
 * listener that only the monitoring system reaches: metrics describe traffic and failures,
 * which the public has no business reading. Anything else is a bare 404.
 *
 * @example
 * ```ts
 * import { serve } from '@hono/node-server';
 * const metrics = createBffMetrics();
 * serve({ fetch: createBffApp({ ...options, metrics }).fetch, port: 8787 });
 * serve({ fetch: createMetricsApp(metrics).fetch, port: 9464, hostname: '127.0.0.1' });
 * ```
 */
export function createMetricsApp(metrics: BffMetrics): Hono {
  const app = new Hono();
  app.get(BFF_ROUTES.metrics, metricsHandler(metrics));
  app.notFound(() => new Response(null, { status: 404, headers: NO_STORE }));
  app.onError(() => new Response(null, { status: 500, headers: NO_STORE }));
  return app;
}
