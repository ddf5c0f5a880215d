import { describeError, type BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { LruMap } from '../util/lru-map.js';
import { failureKind, type StoreFailureKind } from './store-failure.js';

/**
 * After a store call misses its deadline, calls that may be answered from this process's copy
 * (plain reads, writes outside a lock, rate-limit hits, budget steps) skip the store for this
 * long. A hung store (a dead Redis Cluster master whose slots no node serves) would otherwise make
 * every call of a request wait out its own deadline, and a request makes several: it would
 * outlast the BFF's own deadline. A store that fails fast is asked every time. The lock protocol
 * skips only a store judged lost (see {@link StoreHealth}).
 */
export const HUNG_STORE_BYPASS_MS = 2_000;

/** How long a store call may stay unanswered (its deadline missed, no late answer) before the store is lost for its key, not slow. */
export const SLOW_STORE_GRACE_MS = 3_000;

/** A store that fails and recovers by turns is logged at most this often. */
const LOG_EVERY_MS = 10_000;

/** How many keys the health keeps a state for (a few dozen bytes each). */
const MAX_KEYS = 10_000;

export { StoreTimeoutError } from './store-failure.js';

/**
 * A call of the lock protocol (the re-read under a store lock) that the store did not answer while
 * it is slow, not lost: the caller waits as for another holder of the lock, and never calls the
 * vendor on a guess (another process may have written the entry it could not read).
 */
export class StoreSlowError extends Error {
  override name = 'StoreSlowError';
}

/** The monotonic clock the health and the lock protocol's bounds run on (never the epoch clock: an NTP step must not make a store lost, or never lost). */
export const monotonicNow = (): number => performance.now();

/** What the store last did for one key it failed for (keys it answers keep no state). */
interface KeyState {
  /** When the oldest call for the key since its last answer started (monotonic ms); undefined after a connection failure. */
  waitingSince: number | undefined;
  /** Its last call failed at the connection (refused, reset, closed): the store cannot be reached for it. */
  unreachable: boolean;
}

/**
 * What `GuardedStore` knows of its store's health: when it is skipped, and where the line between
 * a **slow** store and a **lost** one lies, per key (a Redis Cluster master that hangs or dies
 * takes only its own slots; the keys of a request live in several slots).
 *
 * - Lost for a key: its last call failed at the connection (refused, reset, closed: the store
 *   cannot be reached), or a call for it has waited {@link SLOW_STORE_GRACE_MS} without an answer
 *   (on time or late), or every call for any key has (the whole store hangs). The age of the
 *   oldest unanswered call decides, never the time since this process's last answer: an idle or
 *   freshly started process has answered nothing for a long time, and is not told anything by it.
 *   Then this process grants its own locks (availability while Redis is away: at most one vendor
 *   call per group per process, ARCHITECTURE §4.4).
 * - Slow otherwise: a missed deadline whose call is younger than the grace, or an error REPLY
 *   (READONLY, LOADING, BUSY, TRYAGAIN, CLUSTERDOWN, OOM…: the store answered; another process may
 *   hold any lock). No lock is granted in this process: the caller waits as for another holder
 *   (503 `group_busy` with `Retry-After` when its wait is over). A CPU-starved machine (Redis
 *   starved too) looks like this: every call in flight misses the deadline and answers a moment later.
 *
 * The skip after a missed deadline ({@link HUNG_STORE_BYPASS_MS}) short-cuts calls that may be
 * answered from the local copy; the lock protocol skips the store only for a key it is lost for
 * (one deadline per request, not one per call, while a store hangs). A call that answers late
 * ends the skip it started. Durations run on a monotonic clock (injectable for tests).
 *
 * Failures are counted (`store_failures_total`, `store_degraded`); a run of them is logged at most
 * once per 10 s (a store failing and answering by turns, as a cluster master failing over fails
 * its own slots only, is not logged at every turn).
 */
export class StoreHealth {
  readonly #clock: () => number;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  #failing = false;
  /** When a failure was last logged (the next is not before LOG_EVERY_MS), and whether this run of failures was (then its end is too). */
  #loggedFailureAt: number | undefined;
  #failureLogged = false;
  /** Until when plain calls skip the store (on the monotonic clock). */
  #skipUntil = 0;
  #lastFailureAt: number | undefined;
  /** The store as a whole: when the oldest call since its last answer (to any call) started. */
  #waitingSince: number | undefined;
  /** The keys whose last call failed (a few dozen bytes each; the least recently failed dropped first). */
  readonly #keys = new LruMap<string, KeyState>(MAX_KEYS);

  constructor(clock: () => number, logger: BffLogger, metrics: BffMetrics) {
    this.#clock = clock;
    this.#logger = logger;
    this.#metrics = metrics;
  }

  /** The monotonic clock (a call's start, for {@link failed}). */
  get now(): number {
    return this.#clock();
  }

  /** Whether the store's last call failed (until one answers). */
  get failing(): boolean {
    return this.#failing;
  }

  /** Whether calls that may be answered from the local copy skip the store now. */
  get skipping(): boolean {
    return this.#skipUntil > this.#clock();
  }

  /** Whether the store is lost (not merely slow) for `key`; see the class. */
  lost(key: string): boolean {
    const now = this.#clock();
    if (this.#waitingSince !== undefined && now - this.#waitingSince >= SLOW_STORE_GRACE_MS) return true;
    const state = this.#keys.get(key);
    return state !== undefined && (state.unreachable || (state.waitingSince !== undefined && now - state.waitingSince >= SLOW_STORE_GRACE_MS));
  }

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#clock() - this.#lastFailureAt < windowMs;
  }

  /** The store answered a call for `key` (late, or with an error reply, too): it is neither lost for the key nor hung as a whole. */
  #heard(key: string): void {
    this.#waitingSince = undefined;
    if (this.#keys.size > 0) this.#keys.delete(key);
  }

  /** The store answered a call (`op`) for `key` in time; resolves whether that ended a run of failures (a recovery). */
  answered(op: string, key: string): boolean {
    this.#heard(key);
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

  /**
   * A call (`op`) for `key`, started at `startedAt` ({@link now}), failed: a missed deadline
   * starts the skip and the call's wait for an answer; an error reply is an answer; a connection
   * failure makes the store lost for the key. Returns a function to call if that call answers
   * late after all.
   */
  failed(op: string, key: string, error: unknown, startedAt: number): () => void {
    this.#metrics.storeFailures.labels(op).inc();
    const now = this.#clock();
    this.#lastFailureAt = now;
    const kind: StoreFailureKind = failureKind(error);
    if (kind === 'reply') this.#heard(key);
    else this.#unanswered(key, kind === 'timeout' ? startedAt : undefined);
    if (kind === 'timeout') this.#skipUntil = now + HUNG_STORE_BYPASS_MS;
    if (!this.#failing) {
      this.#failing = true;
      this.#metrics.storeDegraded.set(1);
      if (this.#loggedFailureAt === undefined || now - this.#loggedFailureAt >= LOG_EVERY_MS) {
        this.#loggedFailureAt = now;
        this.#failureLogged = true;
        this.#logger.warn('store failing: answering from the vendor directly', { op, error: describeError(error) });
      }
    }
    const skip = this.#skipUntil;
    return () => {
      this.#heard(key);
      // A slow store, not a hung one: its answer lifts the skip it started (unless a later call hung meanwhile: then its own skip stands).
      if (this.#skipUntil === skip) this.#skipUntil = 0;
    };
  }

  /** A call for `key` got no answer: waiting since `startedAt` (a missed deadline), or unreachable (`undefined`: a connection failure). */
  #unanswered(key: string, startedAt: number | undefined): void {
    const state = this.#keys.get(key);
    if (startedAt === undefined) {
      this.#keys.set(key, { waitingSince: undefined, unreachable: true });
      return;
    }
    this.#waitingSince ??= startedAt;
    if (state === undefined || state.unreachable) this.#keys.set(key, { waitingSince: startedAt, unreachable: false });
    else state.waitingSince = Math.min(state.waitingSince ?? startedAt, startedAt);
  }
}
