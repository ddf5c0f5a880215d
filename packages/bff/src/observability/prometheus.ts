import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { folds, type BffMetrics, type BffMetricsOptions, type TimingLabel } from './metrics.js';

/** A counter that folds in its hot children's pending counts (`hotCounter`) whenever it is read. */
function foldingCounter<T extends string>(config: { name: string; help: string; labelNames: T[]; registers: Registry[] }): Counter<T> {
  const counter = new Counter<T>({
    ...config,
    collect() {
      for (const fold of folds.get(this) ?? []) fold();
    },
  });
  folds.set(counter, []);
  return counter;
}

/** A browser timing: from tens of milliseconds (a cached token) to the minute a page may wait. */
const timing = (name: string, help: string, registers: Registry[]) =>
  new Histogram<TimingLabel>({
    name,
    help,
    labelNames: ['vendor', 'dashboard', 'kind'],
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 60],
    registers,
  });

/**
 * Creates the BFF's metrics. Pass the same object to `createEmbedRoutes` (or `createBffApp`) and
 * serve it with `createMetricsApp(metrics)` on an internal listener, or expose `metrics.registry`
 * yourself.
 *
 * @example
 * ```ts
 * const metrics = createBffMetrics();
 * app.route('/embed', createEmbedRoutes({ ...options, metrics }));
 * app.get('/metrics', async (c) => c.text(await metrics.registry.metrics()));
 * ```
 */
export function createBffMetrics(options: BffMetricsOptions = {}): BffMetrics {
  const registry = options.registry ?? new Registry();
  const p = options.prefix ?? 'embed_bff_';
  const registers = [registry];
  return {
    registry,
    tokenRequests: foldingCounter({
      name: `${p}token_requests_total`,
      help: 'Token route requests by route and outcome',
      labelNames: ['route', 'outcome'],
      registers,
    }),
    cacheLookups: foldingCounter({ name: `${p}cache_lookups_total`, help: 'Group entry lookups by result', labelNames: ['result'], registers }),
    upstreamCalls: new Counter({
      name: `${p}upstream_calls_total`,
      help: 'Vendor API calls by operation and outcome',
      labelNames: ['op', 'outcome'],
      registers,
    }),
    upstreamDuration: new Histogram({
      name: `${p}upstream_duration_seconds`,
      help: 'Vendor API call latency by operation',
      labelNames: ['op'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    rotations: new Counter({ name: `${p}rotations_total`, help: 'Rotation requests by result', labelNames: ['result'], registers }),
    storeFailures: new Counter({ name: `${p}store_failures_total`, help: 'Store operations that failed (degraded mode)', labelNames: ['op'], registers }),
    storeLocalLocks: new Counter({
      name: `${p}store_local_locks_total`,
      help: 'Locks granted in this process because the store was lost (not merely slow)',
      registers,
    }),
    storeDegraded: new Gauge({ name: `${p}store_degraded`, help: '1 while the store is failing', registers }),
    circuitOpen: new Gauge({ name: `${p}upstream_circuit_open`, help: '1 while the vendor circuit breaker is open or probing', registers }),
    circuitTransitions: new Counter({
      name: `${p}upstream_circuit_transitions_total`,
      help: 'Vendor circuit breaker transitions by target state',
      labelNames: ['to'],
      registers,
    }),
    groupCircuitTransitions: new Counter({
      name: `${p}upstream_group_circuit_transitions_total`,
      help: "Transitions of one customer's vendor circuit by target state",
      labelNames: ['to'],
      registers,
    }),
    refusals: new Counter({
      name: `${p}refusals_total`,
      help: 'Requests refused on purpose (vendor budget, circuit, rate limit), by reason',
      labelNames: ['reason'],
      registers,
    }),
    budgetUsed: new Counter({
      name: `${p}budget_used_total`,
      help: 'Vendor calls the vendor budget admitted, by priority',
      labelNames: ['priority'],
      registers,
    }),
    budgetQueued: new Counter({
      name: `${p}budget_queued_total`,
      help: 'Admitted vendor calls that waited for their slot, by priority',
      labelNames: ['priority'],
      registers,
    }),
    budgetWaiting: new Gauge({ name: `${p}budget_waiting`, help: 'Vendor calls waiting for their slot now', registers }),
    budgetDeferred: new Counter({
      name: `${p}budget_deferred_total`,
      help: 'Drift updates and revalidations deferred by the vendor budget',
      labelNames: ['priority'],
      registers,
    }),
    budgetRefused: new Counter({
      name: `${p}budget_refused_total`,
      help: 'Vendor calls refused by the vendor budget (503), by priority',
      labelNames: ['priority'],
      registers,
    }),
    budgetPauses: new Counter({ name: `${p}budget_pauses_total`, help: 'Vendor 429s that paused the vendor budget', registers }),
    dashboardToken: timing(`${p}dashboard_token_seconds`, "Browsers' wait for the token of a load or renewal (report-timings)", registers),
    dashboardFrameReady: timing(`${p}dashboard_frame_ready_seconds`, "Browsers' wait for the dashboard frame's page to load (report-timings)", registers),
    dashboardLoad: timing(`${p}dashboard_load_seconds`, "Browsers' wait until the dashboard said it was loaded (report-timings)", registers),
    timingReports: new Counter({ name: `${p}timing_reports_total`, help: 'Timings reports by outcome', labelNames: ['outcome'], registers }),
  };
}
