import type { BffLogger } from './logger.js';
import type { BffMetrics } from './metrics.js';

/**
 * Why the BFF refused a request on purpose, without a failing dependency behind the refusal: the
 * vendor budget had no slot in time (503), the vendor's circuit is open for everyone or for this
 * customer (503), another process is still at work on this customer's group and the wait for it
 * is over (503, `group_busy`), the session's rate limit or the rotation throttle (429).
 */
export type RefusalReason = 'vendor_budget' | 'vendor_circuit' | 'customer_circuit' | 'group_busy' | 'session_rate_limit' | 'rotation_throttle';

/** How often at most the summary line is written while refusals go on. */
export const REFUSAL_SUMMARY_INTERVAL_MS = 10_000;

/**
 * Expected refusals, at a rate an operator can read: a cold start of 2,000 new customers under
 * the default budget refuses about 117,000 requests on purpose (each visitor retrying). Each is
 * counted (`embed_bff_refusals_total{reason}`) and its request line goes to `debug`; the log gets
 * one `info` line per interval in which there were any, with the counts by reason. Real errors
 * (a vendor, IdP or store failing) keep their own lines and levels.
 */
export class RefusalLog {
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #now: () => number;
  readonly #intervalMs: number;
  #counts: Partial<Record<RefusalReason, number>> = {};
  /** When the interval being counted started; `undefined` while none is open. */
  #since: number | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(logger: BffLogger, metrics: BffMetrics, now: () => number, intervalMs = REFUSAL_SUMMARY_INTERVAL_MS) {
    this.#logger = logger;
    this.#metrics = metrics;
    this.#now = now;
    this.#intervalMs = intervalMs;
  }

  note(reason: RefusalReason): void {
    this.#metrics.refusals.labels(reason).inc();
    const now = this.#now();
    // The clock decides too: where timers do not outlive a request (Workers), the next refusal writes the line.
    if (this.#since !== undefined && now - this.#since >= this.#intervalMs) this.flush();
    if (this.#since === undefined) {
      this.#since = now;
      this.#timer = setTimeout(() => this.flush(), this.#intervalMs);
      (this.#timer as { unref?: () => void }).unref?.();
    }
    this.#counts[reason] = (this.#counts[reason] ?? 0) + 1;
  }

  /** Writes the summary of the interval being counted, if any. */
  flush(): void {
    if (this.#since === undefined) return;
    clearTimeout(this.#timer);
    const counts = this.#counts;
    const refused = Object.values(counts).reduce((sum, n) => sum + n, 0);
    this.#logger.info('requests refused on purpose', { refused, ...counts, seconds: Math.round((this.#now() - this.#since) / 1000) });
    this.#counts = {};
    this.#since = undefined;
    this.#timer = undefined;
  }
}
