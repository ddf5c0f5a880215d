import { markSpan } from '../observability/tracing.js';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import type { RefusalReason } from '../observability/refusal-log.js';
import { LruMap } from '../util/lru-map.js';
import { Circuit } from './circuit.js';

/** When the breaker around the vendor opens and for how long. `false` turns it off. */
export interface CircuitBreakerOptions {
  /**
   * Consecutive failed vendor calls (each with its own retries) that open it: of one customer
   * for that customer's circuit, of this many different customers for everyone's. Default 5.
   */
  failureThreshold?: number;
  /** How long it stays open the first time, in seconds. Default 5. */
  openSeconds?: number;
  /** Each failed probe doubles the open time, up to this. Default 60. */
  maxOpenSeconds?: number;
}

export type { CircuitState } from './circuit.js';

/** Customers whose failures are remembered at once; the least recently failing are forgotten first. */
const MAX_FAILING_GROUPS = 10_000;

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
 * A circuit breaker for the calls of one vendor account, in two levels, so that one customer
 * whose calls fail (answers the client refuses as malformed, a vendor 5xx for that group only)
 * cannot stop the others:
 *
 * - **Each customer (group) has a circuit.** After `failureThreshold` consecutive outage
 *   failures of its own calls, that customer's calls fail at once with 503
 *   `upstream_unavailable` and `Retry-After`, without reaching the vendor (nor spending the vendor
 *   budget), until one probe of its own goes through.
 * - **The account's circuit counts customers, not calls.** It opens when the outage failures in
 *   a row (no success in between) come from `failureThreshold` different customers: a vendor that
 *   is down fails everyone's calls, a bad tenant retrying is one customer however often it asks.
 *   Open, it fails every call at once.
 *
 * Each circuit, once its open time is over, lets one call through as a probe (half-open) while
 * the others still fail fast; the probe's success closes it, its failure opens it again for twice
 * as long. Opening and closing are logged and measured. The breaker is per process: processes
 * sharing a store each have their own.
 */
export class CircuitBreaker {
  readonly #threshold: number;
  readonly #now: () => number;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #account: Circuit;
  /** The customers whose outage failures make the current run of failures in a row. */
  readonly #failingInARow = new Set<string>();
  /** Circuits of customers whose last calls failed; a success forgets the customer. */
  readonly #groups = new LruMap<string, Circuit>(MAX_FAILING_GROUPS);
  readonly #newCircuit: () => Circuit;

  constructor(options: CircuitBreakerOptions, now: () => number, logger: BffLogger, metrics: BffMetrics) {
    const positive = (name: string, value: number | undefined, fallback: number) => {
      const v = value ?? fallback;
      if (!Number.isFinite(v) || v <= 0) throw new TypeError(`circuitBreaker.${name} must be a positive number`);
      return v;
    };
    this.#threshold = Math.ceil(positive('failureThreshold', options.failureThreshold, 5));
    const openMs = positive('openSeconds', options.openSeconds, 5) * 1000;
    const maxOpenMs = Math.max(openMs, positive('maxOpenSeconds', options.maxOpenSeconds, 60) * 1000);
    this.#newCircuit = () => new Circuit(openMs, maxOpenMs);
    this.#account = this.#newCircuit();
    this.#now = now;
    this.#logger = logger;
    this.#metrics = metrics;
    metrics.circuitOpen.set(0);
  }

  get state(): Circuit['state'] {
    return this.#account.state;
  }

  /** Runs `call`, made for the customer `group`, unless its circuit or the account's is open; records how it went. */
  async run<T>(group: string, call: () => Promise<T>): Promise<T> {
    const now = this.#now();
    const own = this.#groups.get(group);
    let ownProbe: boolean;
    try {
      ownProbe =
        own === undefined ? false : this.#admit(own, now, 'customer_circuit', 'the dashboard vendor is failing for this customer; not calling it for a moment');
    } catch (error) {
      decided('refuse', 'customer');
      throw error;
    }
    let probe: boolean;
    try {
      probe = this.#admit(this.#account, now, 'vendor_circuit', 'the dashboard vendor is failing; not calling it for a moment');
    } catch (error) {
      if (ownProbe) own!.probeUnanswered();
      decided('refuse', 'account');
      throw error;
    }
    if (probe || ownProbe) decided('probe', probe ? 'account' : 'customer');
    else decided('allow', undefined);
    try {
      const result = await call();
      this.#succeeded(group, own);
      return result;
    } catch (error) {
      if (isOutage(error)) this.#failed(group, own, probe, ownProbe);
      else if (isVendorAnswer(error)) {
        if (probe) this.#closeAccount();
        if (ownProbe) this.#groups.delete(group);
      } else {
        // A probe refused before it reached the vendor (the vendor budget) proves nothing: the next call probes.
        if (probe) this.#account.probeUnanswered();
        if (ownProbe) own!.probeUnanswered();
      }
      throw error;
    }
  }

  /** Throws the fail-fast error while `circuit` is open; returns whether this call is its half-open probe. */
  #admit(circuit: Circuit, now: number, refusal: RefusalReason, message: string): boolean {
    const admitted = circuit.admit(now);
    if (typeof admitted === 'boolean') return admitted;
    throw new BffError('upstream_unavailable', message, { retryAfterSeconds: Math.max(1, Math.ceil(admitted.retryAfterMs / 1000)), refusal });
  }

  #succeeded(group: string, own: Circuit | undefined): void {
    this.#failingInARow.clear();
    this.#closeAccount();
    if (own === undefined) return;
    this.#groups.delete(group);
    if (own.state === 'closed') return;
    this.#metrics.groupCircuitTransitions.labels('closed').inc();
    this.#logger.info('vendor circuit closed for one customer: its probe call succeeded', { group: group.slice(0, 256) });
  }

  #closeAccount(): void {
    if (!this.#account.close()) return;
    this.#metrics.circuitOpen.set(0);
    this.#metrics.circuitTransitions.labels('closed').inc();
    this.#logger.info('vendor circuit closed: the probe call succeeded');
  }

  #failed(group: string, own: Circuit | undefined, probe: boolean, ownProbe: boolean): void {
    const now = this.#now();
    const circuit = own ?? this.#newCircuit();
    if (own === undefined) this.#groups.set(group, circuit);
    if (ownProbe) circuit.reopen(now);
    else if (circuit.failed(now, this.#threshold)) {
      this.#metrics.groupCircuitTransitions.labels('open').inc();
      this.#logger.warn('vendor circuit opened for one customer: failing fast for it', { group: group.slice(0, 256), openSeconds: circuit.openMs / 1000 });
    }
    if (probe) {
      this.#account.reopen(now);
      this.#openedAccount('the probe call failed');
      return;
    }
    if (this.#account.state !== 'closed') return;
    this.#failingInARow.add(group);
    if (this.#failingInARow.size < this.#threshold) return;
    this.#failingInARow.clear();
    this.#account.open(now);
    this.#openedAccount(`vendor calls of ${this.#threshold} customers failed in a row`);
  }

  #openedAccount(reason: string): void {
    this.#metrics.circuitOpen.set(1);
    this.#metrics.circuitTransitions.labels('open').inc();
    this.#logger.warn('vendor circuit opened: failing fast', { reason, openSeconds: this.#account.openMs / 1000 });
  }
}

/** The breaker's decision on one call as a span under the vendor call's (ARCHITECTURE §4.5): `allow`, `probe` (half-open) or `refuse`, and whose circuit. */
function decided(decision: 'allow' | 'probe' | 'refuse', circuit: 'customer' | 'account' | undefined): void {
  markSpan(
    'embed.circuit_breaker',
    circuit === undefined
      ? { 'embed.circuit_breaker.decision': decision }
      : { 'embed.circuit_breaker.decision': decision, 'embed.circuit_breaker.circuit': circuit },
  );
}
