import { describeError, type BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';

/**
 * After a store call misses its deadline, calls that may be answered from this process's copy
 * (plain reads, writes outside a lock, rate-limit hits, budget steps) skip the store for this
 * long. A hung store (a dead Redis Cluster master whose slots no node serves) would otherwise make
 * every call of a request wait out its own deadline, and a request makes several: it would
 * outlast the BFF's own deadline. A store that fails fast is asked every time. The lock protocol
 * never skips (see {@link StoreHealth}).
 */
export const HUNG_STORE_BYPASS_MS = 2_000;

/** How long after its last answer (late answers included) a store whose calls miss their deadline is slow, not lost. */
export const SLOW_STORE_GRACE_MS = 3_000;

/** A store that fails and recovers by turns is logged at most this often. */
const LOG_EVERY_MS = 10_000;

/** A store call that did not answer within its deadline. */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * A call of the lock protocol (the re-read under a store lock) that the store did not answer while
 * it is slow, not lost: the caller waits as for another holder of the lock, and never calls the
 * vendor on a guess (another process may have written the entry it could not read).
 */
export class StoreSlowError extends Error {
  override name = 'StoreSlowError';
}

/**
 * What `GuardedStore` knows of its store's health: when it is skipped, and where the line between
 * a **slow** store and a **lost** one lies.
 *
 * - Slow: its last failure was a missed deadline, and it answered something (on time or late)
 *   within the last {@link SLOW_STORE_GRACE_MS}. A CPU-starved machine (Redis starved too) looks
 *   like this: every call in flight misses the deadline at once and answers a moment later.
 *   Another process may hold any lock then, so none is granted in this process: the caller waits
 *   as for another holder (503 `group_busy` with `Retry-After` when its wait is over).
 * - Lost: its last failure was not a missed deadline (refused or reset connections, a cluster
 *   node's error: the store said it cannot serve), or nothing has answered for
 *   {@link SLOW_STORE_GRACE_MS}. Then this process grants its own locks (availability while
 *   Redis is away: at most one vendor call per group per process, ARCHITECTURE §4.4).
 *
 * The skip after a missed deadline ({@link HUNG_STORE_BYPASS_MS}) short-cuts only calls that may be
 * answered from the local copy. The lock step, the re-read under a lock and the holder's write ask
 * the store within their own deadline even while skipping: each of them answered from the copy was
 * a duplicate vendor call (bench row 9b). A call that answers late ends the skip it started.
 *
 * Failures are counted (`store_failures_total`, `store_degraded`); a run of them is logged at most
 * once per 10 s (a store failing and answering by turns, as a cluster master failing over fails
 * its own slots only, is not logged at every turn).
 */
export class StoreHealth {
  readonly #now: () => number;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  #failing = false;
  /** When a failure was last logged (the next is not before LOG_EVERY_MS), and whether this run of failures was (then its end is too). */
  #loggedFailureAt: number | undefined;
  #failureLogged = false;
  /** Until when plain calls skip the store (epoch ms of `now`). */
  #skipUntil = 0;
  /** When the store last answered (late answers too). */
  #answeredAt: number | undefined;
  #lastFailureAt: number | undefined;
  #lastFailureTimedOut = false;

  constructor(now: () => number, logger: BffLogger, metrics: BffMetrics) {
    this.#now = now;
    this.#logger = logger;
    this.#metrics = metrics;
  }

  /** Whether the store's last call failed (until one answers). */
  get failing(): boolean {
    return this.#failing;
  }

  /** Whether calls that may be answered from the local copy skip the store now. */
  get skipping(): boolean {
    return this.#skipUntil > this.#now();
  }

  /** Whether the store is lost (not merely slow), judged after a failure; see the class. */
  get lost(): boolean {
    return !this.#lastFailureTimedOut || this.#now() - (this.#answeredAt ?? -Infinity) >= SLOW_STORE_GRACE_MS;
  }

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#now() - this.#lastFailureAt < windowMs;
  }

  /** The store answered a call (`op`) in time; resolves whether that ended a run of failures (a recovery). */
  answered(op: string): boolean {
    this.#answeredAt = this.#now();
    if (!this.#failing) return false;
    this.#failing = false;
    this.#metrics.storeDegraded.set(0);
    if (this.#failureLogged) this.#logger.info('store recovered', { op });
    this.#failureLogged = false;
    return true;
  }

  /** A lock was granted in this process because the store is lost. */
  grantedLocally(): void {
    this.#metrics.storeLocalLocks.inc();
  }

  /** A call (`op`) failed; a missed deadline starts the skip. Returns a function to call if that call answers late after all. */
  failed(op: string, error: unknown): () => void {
    this.#metrics.storeFailures.labels(op).inc();
    this.#lastFailureAt = this.#now();
    this.#lastFailureTimedOut = error instanceof StoreTimeoutError;
    if (this.#lastFailureTimedOut) this.#skipUntil = this.#lastFailureAt + HUNG_STORE_BYPASS_MS;
    if (!this.#failing) {
      this.#failing = true;
      this.#metrics.storeDegraded.set(1);
      if (this.#loggedFailureAt === undefined || this.#lastFailureAt - this.#loggedFailureAt >= LOG_EVERY_MS) {
        this.#loggedFailureAt = this.#lastFailureAt;
        this.#failureLogged = true;
        this.#logger.warn('store failing: answering from the vendor directly', { op, error: describeError(error) });
      }
    }
    const skip = this.#skipUntil;
    return () => {
      this.#answeredAt = this.#now();
      // A slow store, not a hung one: its answer lifts the skip it started (unless a later call hung meanwhile: then its own skip stands).
      if (this.#skipUntil === skip) this.#skipUntil = 0;
    };
  }
}
