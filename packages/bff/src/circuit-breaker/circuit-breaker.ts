import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';

/** When the breaker around the vendor opens and for how long. `false` turns it off. */
export interface CircuitBreakerOptions {
  /** Consecutive failed vendor calls (each with its own retries) that open it. Default 5. */
  failureThreshold?: number;
  /** How long it stays open the first time, in seconds. Default 5. */
  openSeconds?: number;
  /** Each failed probe doubles the open time, up to this. Default 60. */
  maxOpenSeconds?: number;
}

/** `closed`: calls go through. `open`: calls fail at once. `half-open`: one probe is out. */
export type CircuitState = 'closed' | 'open' | 'half-open';

/**
 * Failures that say the vendor (or the way to it) is down: no answer, a timeout, a 5xx, an
 * unreadable answer. A refusal of one request (`success: 0`, a 4xx, 429 with its own
 * `Retry-After`) says nothing about the vendor's health and does not count.
 */
function isOutage(error: unknown): boolean {
  const { code, status } = error as { code?: unknown; status?: unknown };
  switch (code) {
    case 'network':
    case 'timeout':
    case 'deadline_exceeded':
    case 'malformed_response':
      return true;
    case 'http_status':
      return typeof status !== 'number' || status >= 500;
    default:
      return false;
  }
}

/** A refusal the vendor itself sent: it is up, whatever it thought of this request. */
function isVendorAnswer(error: unknown): boolean {
  const { code } = error as { code?: unknown };
  return code === 'api_failure' || code === 'http_status' || code === 'rate_limited';
}

/**
 * A circuit breaker for the calls of one vendor account. After `failureThreshold` consecutive
 * outage failures it opens: every call fails at once with 503 `upstream_unavailable` and
 * `Retry-After`, without reaching the vendor. When the open time is over, one call goes through
 * as a probe (half-open) while the others still fail fast; its success closes the breaker, its
 * failure opens it again for twice as long. Opening and closing are logged and measured.
 *
 * The breaker is per process: processes sharing a store each have their own.
 */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #openMs: number;
  readonly #maxOpenMs: number;
  readonly #now: () => number;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  #state: CircuitState = 'closed';
  #failures = 0;
  #openUntil = 0;
  #currentOpenMs: number;

  constructor(options: CircuitBreakerOptions, now: () => number, logger: BffLogger, metrics: BffMetrics) {
    const positive = (name: string, value: number | undefined, fallback: number) => {
      const v = value ?? fallback;
      if (!Number.isFinite(v) || v <= 0) throw new TypeError(`circuitBreaker.${name} must be a positive number`);
      return v;
    };
    this.#threshold = Math.ceil(positive('failureThreshold', options.failureThreshold, 5));
    this.#openMs = positive('openSeconds', options.openSeconds, 5) * 1000;
    this.#maxOpenMs = Math.max(this.#openMs, positive('maxOpenSeconds', options.maxOpenSeconds, 60) * 1000);
    this.#currentOpenMs = this.#openMs;
    this.#now = now;
    this.#logger = logger;
    this.#metrics = metrics;
    metrics.circuitOpen.set(0);
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** Runs `call` unless the breaker is open; records how it went. */
  async run<T>(call: () => Promise<T>): Promise<T> {
    const probe = this.#admit();
    try {
      const result = await call();
      this.#succeeded();
      return result;
    } catch (error) {
      if (isOutage(error)) this.#failed(probe);
      else if (probe && isVendorAnswer(error)) this.#succeeded();
      // A probe refused before it reached the vendor (the vendor budget) proves nothing: the next call probes.
      else if (probe) this.#state = 'open';
      throw error;
    }
  }

  /** Throws the fail-fast error while open; returns whether this call is the half-open probe. */
  #admit(): boolean {
    if (this.#state === 'closed') return false;
    const now = this.#now();
    if (this.#state === 'open' && now >= this.#openUntil) {
      this.#state = 'half-open';
      return true;
    }
    const leftMs = this.#state === 'open' ? this.#openUntil - now : 1000;
    throw new BffError('upstream_unavailable', 'the dashboard vendor is failing; not calling it for a moment', {
      retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    });
  }

  #succeeded(): void {
    this.#failures = 0;
    if (this.#state === 'closed') return;
    this.#state = 'closed';
    this.#currentOpenMs = this.#openMs;
    this.#metrics.circuitOpen.set(0);
    this.#metrics.circuitTransitions.labels('closed').inc();
    this.#logger.info('vendor circuit closed: the probe call succeeded');
  }

  #failed(probe: boolean): void {
    if (probe) {
      this.#currentOpenMs = Math.min(this.#maxOpenMs, this.#currentOpenMs * 2);
      this.#open('the probe call failed');
      return;
    }
    this.#failures += 1;
    if (this.#state === 'closed' && this.#failures >= this.#threshold) this.#open(`${this.#failures} vendor calls failed in a row`);
  }

  #open(reason: string): void {
    this.#state = 'open';
    this.#openUntil = this.#now() + this.#currentOpenMs;
    this.#metrics.circuitOpen.set(1);
    this.#metrics.circuitTransitions.labels('open').inc();
    this.#logger.warn('vendor circuit opened: failing fast', { reason, openSeconds: this.#currentOpenMs / 1000 });
  }
}
