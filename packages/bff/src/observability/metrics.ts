// Types only: this module runs on every runtime; prom-client (Node) is in prometheus.ts.
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  /** Locks this process granted itself because the store was lost (not merely slow): each may cost a vendor call another process also makes. */
  storeLocalLocks: Counter;
  /** 1 while the store is failing, else 0. */
  storeDegraded: Gauge;
  /** 1 while the vendor circuit breaker is open or probing, else 0. */
  circuitOpen: Gauge;
  /** Vendor circuit breaker transitions by `to` (`open` | `closed`). */
  circuitTransitions: Counter<'to'>;
  /** Transitions of one customer's vendor circuit by `to` (`open` | `closed`). */
  groupCircuitTransitions: Counter<'to'>;
  /** Requests refused on purpose, by `reason` (`RefusalReason`): the budget, a circuit, a rate limit. */
  refusals: Counter<'reason'>;
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
  /**
   * Browsers' timings reports (`POST /timings`, the element's `report-timings`), in seconds, by
   * `vendor`, `dashboard` (only the dashboards the BFF embeds) and `kind` (`load` | `renewal`):
   * until the element had its token, its frame had loaded its page, and its dashboard said loaded.
   */
  dashboardToken: Histogram<TimingLabel>;
  dashboardFrameReady: Histogram<TimingLabel>;
  dashboardLoad: Histogram<TimingLabel>;
  /** Timings reports by `outcome` (`ok` or the error code they were refused with). */
  timingReports: Counter<'outcome'>;
}

/** The labels of the timings histograms. */
export type TimingLabel = 'vendor' | 'dashboard' | 'kind';

export interface BffMetricsOptions {
  /** Registry to register on. Default: a new `Registry`. */
  registry?: Registry;
  /** Metric name prefix. Default `embed_bff_`. */
  prefix?: string;
}

/** Pending counts of a counter's hot children, folded into it whenever it is read (prometheus.ts). */
export const folds = new WeakMap<Counter<string>, Array<() => void>>();

/**
 * A child of `counter` for the hot path: `inc()` adds to a plain integer, folded into the
 * counter when it is read (`registry.metrics()`, `counter.get()`). prom-client's own child
 * hashes its labels on every `inc`, a measurable share of a cached token request. For a
 * counter not made by `createBffMetrics` it is the ordinary child.
 */
export function hotCounter<T extends string>(counter: Counter<T>, ...labels: string[]): { inc(): void } {
  const child = counter.labels(...labels);
  const list = folds.get(counter);
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
