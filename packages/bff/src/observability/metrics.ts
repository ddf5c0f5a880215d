import { Counter, Gauge, Histogram, Registry } from 'prom-client';

/** The BFF's Prometheus metrics, on a registry of their own (never prom-client's global one). */
export interface BffMetrics {
  registry: Registry;
  /** Token route requests by `route` (`token` | `rotate`) and `outcome` (`ok` or an error code). */
  tokenRequests: Counter<'route' | 'outcome'>;
  /** Group entry lookups by `result` (`hit` | `miss`). */
  cacheLookups: Counter<'result'>;
  /** Vendor calls by `op` (`getOrCreate` | `update` | `rotate`) and `outcome` (`ok` or the client's error code). */
  upstreamCalls: Counter<'op' | 'outcome'>;
  upstreamDuration: Histogram<'op'>;
  /** Rotation requests by `result` (`rotated` | `current` | `throttled` | `recovered` | `refused`). */
  rotations: Counter<'result'>;
  /** Store operations that failed, by `op`; the BFF went straight to the vendor. */
  storeFailures: Counter<'op'>;
  /** 1 while the store is failing, else 0. */
  storeDegraded: Gauge;
  /** 1 while the vendor circuit breaker is open or probing, else 0. */
  circuitOpen: Gauge;
  /** Vendor circuit breaker transitions by `to` (`open` | `closed`). */
  circuitTransitions: Counter<'to'>;
  /** Vendor calls the budget admitted, by `priority` (`first-token` | `rotation` | `drift` | `revalidation`). */
  budgetUsed: Counter<'priority'>;
  /** Admitted calls that first waited for their slot, by `priority`. */
  budgetQueued: Counter<'priority'>;
  /** Calls waiting for their slot right now (this process). */
  budgetWaiting: Gauge;
  /** Drift updates and revalidations skipped because the budget was tight (the cached token was served). */
  budgetDeferred: Counter<'priority'>;
  /** Calls refused (503 with `Retry-After` to the browser), by `priority`. */
  budgetRefused: Counter<'priority'>;
  /** Vendor 429s that emptied the budget for their `Retry-After`. */
  budgetPauses: Counter;
}

export interface BffMetricsOptions {
  /** Registry to register on. Default: a new `Registry`. */
  registry?: Registry;
  /** Metric name prefix. Default `embed_bff_`. */
  prefix?: string;
}

/** Pending counts of a counter's hot children, folded into it whenever it is read. */
const folds = new WeakMap<Counter<string>, Array<() => void>>();

function foldingCounter<T extends string>(config: { name: string; help: string; labelNames: T[]; registers: Registry[] }): Counter<T> {
  const counter = new Counter<T>({
    ...config,
    collect() {
      for (const fold of folds.get(this as Counter<string>) ?? []) fold();
    },
  });
  folds.set(counter as Counter<string>, []);
  return counter;
}

/**
 * A child of `counter` for the hot path: `inc()` adds to a plain integer, folded into the
 * counter when it is read (`registry.metrics()`, `counter.get()`). prom-client's own child
 * hashes its labels on every `inc`, a measurable share of a cached token request. For a
 * counter not made by `createBffMetrics` it is the ordinary child.
 */
export function hotCounter<T extends string>(counter: Counter<T>, ...labels: string[]): { inc(): void } {
  const child = counter.labels(...labels);
  const list = folds.get(counter as Counter<string>);
  if (list === undefined) return child;
  let pending = 0;
  list.push(() => {
    if (pending > 0) child.inc(pending);
    pending = 0;
  });
  return {
    inc() {
      pending += 1;
    },
  };
}

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
    tokenRequests: foldingCounter({ name: `${p}token_requests_total`, help: 'Token route requests by route and outcome', labelNames: ['route', 'outcome'], registers }),
    cacheLookups: foldingCounter({ name: `${p}cache_lookups_total`, help: 'Group entry lookups by result', labelNames: ['result'], registers }),
    upstreamCalls: new Counter({ name: `${p}upstream_calls_total`, help: 'Vendor API calls by operation and outcome', labelNames: ['op', 'outcome'], registers }),
    upstreamDuration: new Histogram({
      name: `${p}upstream_duration_seconds`,
      help: 'Vendor API call latency by operation',
      labelNames: ['op'],
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    }),
    rotations: new Counter({ name: `${p}rotations_total`, help: 'Rotation requests by result', labelNames: ['result'], registers }),
    storeFailures: new Counter({ name: `${p}store_failures_total`, help: 'Store operations that failed (degraded mode)', labelNames: ['op'], registers }),
    storeDegraded: new Gauge({ name: `${p}store_degraded`, help: '1 while the store is failing', registers }),
    circuitOpen: new Gauge({ name: `${p}upstream_circuit_open`, help: '1 while the vendor circuit breaker is open or probing', registers }),
    circuitTransitions: new Counter({ name: `${p}upstream_circuit_transitions_total`, help: 'Vendor circuit breaker transitions by target state', labelNames: ['to'], registers }),
    budgetUsed: new Counter({ name: `${p}budget_used_total`, help: 'Vendor calls the vendor budget admitted, by priority', labelNames: ['priority'], registers }),
    budgetQueued: new Counter({ name: `${p}budget_queued_total`, help: 'Admitted vendor calls that waited for their slot, by priority', labelNames: ['priority'], registers }),
    budgetWaiting: new Gauge({ name: `${p}budget_waiting`, help: 'Vendor calls waiting for their slot now', registers }),
    budgetDeferred: new Counter({ name: `${p}budget_deferred_total`, help: 'Drift updates and revalidations deferred by the vendor budget', labelNames: ['priority'], registers }),
    budgetRefused: new Counter({ name: `${p}budget_refused_total`, help: 'Vendor calls refused by the vendor budget (503), by priority', labelNames: ['priority'], registers }),
    budgetPauses: new Counter({ name: `${p}budget_pauses_total`, help: 'Vendor 429s that paused the vendor budget', registers }),
  };
}
