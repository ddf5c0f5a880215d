import type { BffMetrics } from './metrics.js';

const nothing = () => undefined;
const child = { inc: nothing, dec: nothing, set: nothing, observe: nothing };
const metric = { ...child, labels: () => child, startTimer: () => () => 0, get: async () => ({ values: [] }) };
const keptNone = new WeakSet<BffMetrics>();

/**
 * Metrics that keep nothing: the default where prom-client cannot run (Cloudflare Workers, the
 * Next.js edge runtime). An isolate's counters would be lost with it and no one could scrape
 * them; logs are the record there. `createBffApp({ exposeMetrics: true })` refuses them.
 */
export function createNoMetrics(): BffMetrics {
  const registry = { metrics: async () => '', contentType: 'text/plain; version=0.0.4; charset=utf-8' };
  const metrics = {
    registry,
    tokenRequests: metric,
    cacheLookups: metric,
    upstreamCalls: metric,
    upstreamDuration: metric,
    rotations: metric,
    storeFailures: metric,
    storeLocalLocks: metric,
    storeDegraded: metric,
    circuitOpen: metric,
    circuitTransitions: metric,
    groupCircuitTransitions: metric,
    refusals: metric,
    budgetUsed: metric,
    budgetQueued: metric,
    budgetWaiting: metric,
    budgetDeferred: metric,
    budgetRefused: metric,
    budgetPauses: metric,
    dashboardToken: metric,
    dashboardFrameReady: metric,
    dashboardLoad: metric,
    timingReports: metric,
  } as unknown as BffMetrics;
  keptNone.add(metrics);
  return metrics;
}

/** Whether `metrics` are {@link createNoMetrics}'s. */
export const keepsNoMetrics = (metrics: BffMetrics): boolean => keptNone.has(metrics);
