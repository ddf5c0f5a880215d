import { Hono } from 'hono';
import { BFF_ROUTES, type HealthResponse, type ReadinessResponse } from '@embedded-dashboard/protocol';
import type { BffRuntime } from '../runtime.js';
import { metricsHandler } from './metrics-routes.js';
import { respondJson } from './respond.js';

const PING_TIMEOUT_MS = 1000;
const DEGRADED_WINDOW_MS = 30_000;

/** `/healthz` (the process runs), `/readyz` (the store answers) and optionally `/metrics`. */
export function buildHealthRoutes(runtime: BffRuntime, exposeMetrics: boolean): Hono {
  const routes = new Hono();
  routes.get(BFF_ROUTES.healthz, (c) => respondJson(c, 200, { status: 'ok' } satisfies HealthResponse));
  routes.get(BFF_ROUTES.readyz, async (c) => {
    try {
      await runtime.store.ping(PING_TIMEOUT_MS);
    } catch {
      return respondJson(c, 503, { status: 'unavailable', store: 'down' } satisfies ReadinessResponse);
    }
    // The store answers, but requests failed on it recently: ready, and say so.
    const store = runtime.store.failedWithin(DEGRADED_WINDOW_MS) ? 'degraded' : 'ok';
    return respondJson(c, 200, { status: 'ready', store } satisfies ReadinessResponse);
  });
  if (exposeMetrics) routes.get(BFF_ROUTES.metrics, metricsHandler(runtime.metrics));
  return routes;
}
