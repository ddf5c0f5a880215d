import { BffError } from '../errors/bff-error.js';
import type { BffMetrics } from '../observability/metrics.js';
import { inSpan } from '../observability/tracing.js';
import type { BudgetDecision, BudgetRequest } from './reservation.js';

/**
 * Why a vendor call is made, most urgent first. A visitor without any token waits for a slot;
 * a holder of a dead token (rotation) almost as long; keeping the vendor's copy of a group in
 * sync (drift update) and revalidating a cached group run only while the budget has room left,
 * since a cached token can still be served meanwhile.
 */
export type CallPriority = 'first-token' | 'rotation' | 'drift' | 'revalidation';

/** How long a vendor 429 without `Retry-After` empties the budget. */
const DEFAULT_PAUSE_MS = 1_000;

export const CALL_PRIORITIES: readonly CallPriority[] = ['first-token', 'rotation', 'drift', 'revalidation'];

/** The budget said no: for `first-token` and `rotation` a 503 with `Retry-After`; lower priorities are deferred. */
export class BudgetRefusedError extends BffError {
  constructor(priority: CallPriority, retryAfterMs: number) {
    super('upstream_unavailable', 'the dashboard vendor is busy; retry shortly', {
      retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)),
      cause: new Error(`vendor budget: ${priority} call refused`),
      refusal: 'vendor_budget',
    });
  }
}

/**
 * What the budget needs of a store: one atomic step of GCRA on the number kept under `key`
 * (shared in Redis, per process in memory; the token service's guarded store is one).
 */
export interface BudgetStore {
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision>;
}

export interface UpstreamBudgetOptions {
  /** Vendor calls per minute for the whole fleet sharing the store; `0` turns the budget off. */
  ratePerMinute: number;
  /** Calls the bucket holds. Default: 10 seconds' worth (at least 1). */
  burst?: number;
  /** How long a visitor may wait for a slot before a 503 with `Retry-After`. */
  maxWaitMs: number;
  /** The store key of this vendor account's budget. */
  key: string;
  store: BudgetStore;
  metrics: BffMetrics;
  sleep: (ms: number) => Promise<void>;
}

/** The vendor budget as the token service uses it. */
export interface UpstreamBudget {
  /**
   * Runs `call` once the budget admits a call of `priority` (waiting for its slot), or throws
   * {@link BudgetRefusedError}. A vendor 429 with `Retry-After` (an error with `code`
   * `rate_limited` and `retryAfterMs`) empties the budget until then, for the whole fleet.
   */
  run<T>(priority: CallPriority, call: () => Promise<T>): Promise<T>;
}

/**
 * Creates the budget: GCRA over the store (shared in Redis, per process in memory). With a
 * burst of 10 seconds' worth, any 60-second window sees at most 70 seconds of calls, so the
 * default 150 a minute stays under the vendor's 180 even if the vendor counts a sliding window.
 */
export function createUpstreamBudget(options: UpstreamBudgetOptions): UpstreamBudget {
  const { ratePerMinute, store, metrics, sleep, key, maxWaitMs } = options;
  if (ratePerMinute === 0) return { run: (_priority, call) => call() };
  if (!Number.isFinite(ratePerMinute) || ratePerMinute < 0) throw new TypeError('upstreamRatePerMinute must be a non-negative number');
  const intervalMs = 60_000 / ratePerMinute;
  const burst = options.burst ?? Math.max(1, Math.ceil(ratePerMinute / 6));
  if (!Number.isInteger(burst) || burst < 1) throw new TypeError('upstreamBurst must be a positive integer');
  const burstMs = burst * intervalMs;
  // Drift and revalidation never wait: they need a quarter, resp. half, of the bucket left.
  const maxLatenessMs: Record<CallPriority, number> = {
    'first-token': maxWaitMs,
    rotation: maxWaitMs / 2,
    drift: -burstMs / 4,
    revalidation: -burstMs / 2,
  };
  const request = (priority: CallPriority): BudgetRequest => ({ intervalMs, burstMs, maxLatenessMs: maxLatenessMs[priority] });
  let queued = 0;

  return {
    async run(priority, call) {
      // The reservation and the wait for the slot, as one span (its store call a child); the call itself comes after it.
      await inSpan('embed.vendor_budget', { 'embed.vendor.priority': priority }, async (span) => {
        const decision = await store.reserveBudget(key, request(priority));
        span?.setAttributes({
          'embed.vendor_budget.decision': decision.admitted ? 'admit' : 'refuse',
          'embed.vendor_budget.wait_ms': decision.admitted ? decision.waitMs : 0,
        });
        if (!decision.admitted) {
          metrics.budgetRefused.labels(priority).inc();
          throw new BudgetRefusedError(priority, decision.retryAfterMs);
        }
        metrics.budgetUsed.labels(priority).inc();
        if (decision.waitMs > 0) {
          metrics.budgetQueued.labels(priority).inc();
          metrics.budgetWaiting.set(++queued);
          try {
            await sleep(decision.waitMs);
          } finally {
            metrics.budgetWaiting.set(--queued);
          }
        }
      });
      try {
        return await call();
      } catch (error) {
        const { code, retryAfterMs } = error as { code?: unknown; retryAfterMs?: unknown };
        if (code === 'rate_limited') {
          metrics.budgetPauses.inc();
          const pauseMs = typeof retryAfterMs === 'number' && retryAfterMs > 0 ? retryAfterMs : DEFAULT_PAUSE_MS;
          await store.reserveBudget(key, { intervalMs, burstMs, maxLatenessMs: 0, pauseMs });
        }
        throw error;
      }
    },
  };
}
