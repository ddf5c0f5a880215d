import { BudgetRefusedError, type CallPriority, type UpstreamBudget } from '../vendor-budget/upstream-budget.js';
import { CircuitBreaker, type CircuitBreakerOptions } from '../circuit-breaker/circuit-breaker.js';
import { BffError } from '../errors/bff-error.js';
import { toBffError } from '../errors/upstream-error.js';
import { describeError, type BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { inSpan } from '../observability/tracing.js';

/** Every vendor operation, by the name its metrics and logs carry (`superset*`: the Superset adapter's). */
export type VendorOp = 'getOrCreate' | 'update' | 'rotate' | 'generateJwt' | 'supersetLogin' | 'supersetGuestToken';

const OP_NAMES: Record<VendorOp, string> = {
  getOrCreate: 'get-or-create',
  update: 'update',
  rotate: 'token rotation',
  generateJwt: 'embed token (generate_jwt)',
  supersetLogin: 'service account sign-in (login and CSRF token)',
  supersetGuestToken: 'guest token',
};

/** A failure of the vendor itself (or the breaker standing in for it), not a refusal of this group. */
export const isVendorOutage = (error: unknown): boolean =>
  error instanceof BffError &&
  (error.code === 'upstream_unavailable' || error.code === 'upstream_timeout' || (error.code === 'upstream_error' && error.retryable));

/**
 * Every vendor call of the token service (and of the embed-token mode's vendor mint) goes through `call`, and only through it: it is timed,
 * counted by outcome, logged when it fails, and its failure mapped to the browser-facing error.
 * Policy about whether and when to call the vendor at all wraps the call at this one spot
 * (outermost first), so each policy stays a module of its own: the circuit breaker (an open
 * breaker fails at once, nothing else is spent), then the vendor budget (the call waits for its
 * slot, or is refused without reaching the vendor), then the call itself.
 */
export class VendorCalls {
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #budget: UpstreamBudget;
  readonly #breaker: CircuitBreaker | undefined;
  readonly #vendor: string;

  constructor(
    breaker: CircuitBreakerOptions | false,
    budget: UpstreamBudget,
    now: () => number,
    logger: BffLogger,
    metrics: BffMetrics,
    /** The vendor's name on the calls' spans. */
    vendor = 'explo',
  ) {
    this.#vendor = vendor;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#budget = budget;
    this.#breaker = breaker === false ? undefined : new CircuitBreaker(breaker, now, logger, metrics);
  }

  /** Calls the vendor for the customer whose store key is `group` (its circuit is that customer's). */
  call<T>(group: string, op: VendorOp, priority: CallPriority, call: () => Promise<T>): Promise<T> {
    // One span a vendor operation (never the group: it holds the customer id); its breaker decision, budget wait and HTTP attempts are its children.
    return inSpan(`embed.vendor_call ${op}`, { 'embed.vendor.name': this.#vendor, 'embed.vendor.operation': op, 'embed.vendor.priority': priority }, () =>
      this.#call(group, op, priority, call),
    ) as Promise<T>;
  }

  async #call<T>(group: string, op: VendorOp, priority: CallPriority, call: () => Promise<T>): Promise<T> {
    const timed = async () => {
      const stop = this.#metrics.upstreamDuration.startTimer({ op });
      try {
        return await call();
      } finally {
        stop();
      }
    };
    const budgeted = () => this.#budget.run(priority, timed);
    try {
      const result = await (this.#breaker === undefined ? budgeted() : this.#breaker.run(group, budgeted));
      this.#metrics.upstreamCalls.labels(op, 'ok').inc();
      return result;
    } catch (error) {
      // The budget refused: the vendor was not called (the budget's own metric counts it).
      if (error instanceof BudgetRefusedError) throw error;
      if (error instanceof BffError) {
        // The breaker refused: the vendor was not called.
        this.#metrics.upstreamCalls.labels(op, 'circuit_open').inc();
        throw error;
      }
      const code = (error as { code?: unknown }).code;
      this.#metrics.upstreamCalls.labels(op, typeof code === 'string' ? code : 'error').inc();
      this.#logger.warn('vendor call failed', { op, error: describeError(error) });
      throw toBffError(error, OP_NAMES[op]);
    }
  }

  /**
   * `call`, or `undefined` when the budget refused it while a cached entry can be served
   * meanwhile (`servable`: a drift sync or revalidation; a visitor without a token is never deferred).
   */
  async deferrable<T>(group: string, op: VendorOp, priority: CallPriority, servable: boolean, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await this.call(group, op, priority, call);
    } catch (error) {
      if (!(error instanceof BudgetRefusedError) || !servable) throw error;
      this.#metrics.budgetDeferred.labels(priority).inc();
      return undefined;
    }
  }
}
