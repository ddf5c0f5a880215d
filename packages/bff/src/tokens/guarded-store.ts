import type { BffLogger } from '../observability/logger.js';
import { describeError } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { MemoryTokenStore } from '../store/memory.js';
import { LocalCopy } from './local-copy.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { BudgetFallback } from '../budget/budget-fallback.js';
import type { BudgetDecision, BudgetRequest } from '../budget/reservation.js';
import { withSocketDeadline } from '../util/deadline.js';

const NO_LOCK: LockHandle = { release: () => Promise.resolve() };

/**
 * After a store call hangs to its deadline, calls go straight to the fallback for this long.
 * A hung store (a dead Redis Cluster master whose slots no node serves) would otherwise make
 * every call of a request wait out its own deadline, and a request makes several: a request
 * would outlast the BFF's own deadline. A store that fails fast is asked every time.
 */
const HUNG_STORE_BYPASS_MS = 2_000;

/** After the store failed, how long what other processes synced meanwhile may still be on its way to it. */
const WRITE_BACK_GRACE_MS = 10_000;

/** How long after its last answer a store whose calls miss their deadline is slow, not lost (see `tryLock`). */
const SLOW_STORE_GRACE_MS = 3_000;

/** A store that fails and recovers by turns is logged at most this often. */
const LOG_EVERY_MS = 10_000;

class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * The store as the token service sees it: a failing store (Redis down) never fails a request.
 *
 * While the store fails, entries come from this process's `LocalCopy` (every entry it read from
 * or wrote to the store; bounded, and kept across recoveries so a flapping store costs nothing),
 * rate limits are counted there, the vendor budget continues from where the shared one stood
 * (`BudgetFallback`, charged to the shared budget when it answers), and locks are granted
 * (in-process single-flight still holds): an outage costs at most one vendor call per group per
 * process, within the budget. The store is asked first whenever it answers; entries set while it
 * failed are written back (`setIfAbsentOrSuperseded`) so a rotation made meanwhile wins over the
 * older entry the store kept, and an entry another process wrote meanwhile is never replaced.
 * Failures are counted; a run of them is logged at most once per 10 s.
 *
 * A store with the synchronous capability (`peek` and `hitNow`: this process's memory) is read
 * and counted without a promise, which is the BFF's hot path, and runs without a deadline.
 */
export class GuardedStore {
  readonly #store: TokenStore;
  readonly #copy: LocalCopy;
  #writingBack = false;
  /** This process's budget when the store keeps none (it is the only budget then). */
  readonly #ownBudget = new MemoryTokenStore({ maxEntries: 1, maxCounters: 1 });
  /** The shared budget as this process knows it, and its own count while the store fails. */
  readonly #budget: BudgetFallback;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => number;
  readonly #sync: boolean;
  #failing = false;
  #lastFailureAt: number | undefined;
  /** When a failure was last logged (the next is not before LOG_EVERY_MS), and whether this run of failures was (then its end is too). */
  #loggedFailureAt: number | undefined;
  #failureLogged = false;
  /** Until when calls skip a store that hung (epoch ms of `now`). */
  #bypassUntil = 0;
  /** When the store last answered (late answers too); whether its last failure was a missed deadline. */
  #answeredAt: number | undefined;
  #lastFailureTimedOut = false;

  constructor(store: TokenStore, logger: BffLogger, metrics: BffMetrics, timeoutMs: number, now: () => number) {
    this.#store = store;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#now = now;
    this.#budget = new BudgetFallback(now);
    this.#copy = new LocalCopy(now);
    this.#sync = typeof store.peek === 'function' && typeof store.hitNow === 'function';
    // In-process memory cannot hang; only a remote store needs a deadline (and its timer).
    this.#timeoutMs = this.#sync ? undefined : timeoutMs;
  }

  /**
   * Whether the store is failing now (its last call failed, or it hung and is being skipped):
   * entries then come from this process's local copy, and what other processes synced is unknown.
   */
  get degraded(): boolean {
    return this.#failing || this.#bypassUntil > this.#now();
  }

  /**
   * Whether what other processes synced for `key` may be missing from the store: it is failing,
   * the last read of this key failed (a Redis Cluster master that died fails its own slots while
   * the others answer), or it failed moments ago (what other processes synced meanwhile reaches
   * it with their write-backs, which take a moment).
   */
  degradedFor(key: string): boolean {
    return this.degraded || this.#copy.unreadable(key) || this.failedWithin(WRITE_BACK_GRACE_MS);
  }

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#now() - this.#lastFailureAt < windowMs;
  }

  /**
   * The store call within the deadline, else `fallback()`. A call that missed its deadline but
   * answers after all shows a slow store, not a hung one (a CPU-starved machine: an answer 10 ms
   * late): its answer lifts the skip it started, so one busy moment does not send every call of
   * this process to the fallback for 2 s, and `onLate` gets what it answered (a lock taken too
   * late to be used is released, instead of holding other processes off for its lifetime).
   */
  #run<T>(op: string, call: () => Promise<T>, fallback: () => T | Promise<T>, onLate?: (value: T) => void): Promise<T> {
    if (this.#bypassUntil > this.#now()) return Promise.resolve(fallback());
    let pending: Promise<T> | undefined;
    return this.#within(op, () => (pending = call())).then(
      (value) => {
        this.#answeredAt = this.#now();
        if (this.#failing) {
          this.#failing = false;
          this.#metrics.storeDegraded.set(0);
          if (this.#failureLogged) this.#logger.info('store recovered', { op });
          this.#failureLogged = false;
          // Else every customer synced during the outage would cost its sync again right after it.
          void this.#writeBack();
        }
        return value;
      },
      (error: unknown) => {
        this.#failed(op, error);
        if (error instanceof StoreTimeoutError && pending !== undefined) this.#whenLate(pending, onLate);
        return fallback();
      },
    );
  }

  #whenLate<T>(late: Promise<T>, onLate: ((value: T) => void) | undefined): void {
    const skipping = this.#bypassUntil;
    late.then(
      (value) => {
        this.#answeredAt = this.#now();
        // Unless a later call hung meanwhile (then its own skip stands).
        if (this.#bypassUntil === skipping) this.#bypassUntil = 0;
        onLate?.(value);
      },
      () => undefined,
    );
  }

  #within<T>(op: string, call: () => Promise<T>): Promise<T> {
    return this.#timeoutMs === undefined ? call() : within(this.#timeoutMs, op, call);
  }

  #failed(op: string, error: unknown): void {
    this.#metrics.storeFailures.labels(op).inc();
    this.#lastFailureAt = this.#now();
    this.#lastFailureTimedOut = error instanceof StoreTimeoutError;
    if (this.#lastFailureTimedOut) this.#bypassUntil = this.#lastFailureAt + HUNG_STORE_BYPASS_MS;
    if (!this.#failing) {
      this.#failing = true;
      this.#metrics.storeDegraded.set(1);
      // A store failing and answering by turns (a cluster master failing over fails its own slots
      // only) is logged once per LOG_EVERY_MS, not at every turn; the metrics count every failure.
      if (this.#loggedFailureAt === undefined || this.#lastFailureAt - this.#loggedFailureAt >= LOG_EVERY_MS) {
        this.#loggedFailureAt = this.#lastFailureAt;
        this.#failureLogged = true;
        this.#logger.warn('store failing: answering from the vendor directly', { op, error: describeError(error) });
      }
    }
  }

  /**
   * The entry under `key`: at once from a synchronous store, else a promise. A failing store
   * reads from the local copy; a store that lost an entry the copy holds gets it back as due
   * for revalidation.
   */
  get(key: string): MaybePromise<GroupEntry | undefined> {
    if (this.#sync) {
      try {
        return this.#store.peek!(key);
      } catch (error) {
        this.#failed('get', error);
        return undefined;
      }
    }
    return this.#run(
      'get',
      async () => {
        const entry = this.#copy.read(key, await this.#store.get(key));
        if (this.#copy.unsaved) void this.#writeBack();
        return entry;
      },
      () => this.#copy.readFailed(key),
    );
  }

  set(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    return this.#run(
      'set',
      async () => {
        await this.#store.set(key, entry, ttlMs);
        this.#copy.written(key, entry, ttlMs);
      },
      () => this.#copy.writeFailed(key, entry, ttlMs),
    );
  }

  /**
   * Hands the store what this process set while it failed (`setIfAbsentOrSuperseded`, else
   * `setIfAbsent`): where the store holds nothing for the key, or an entry whose token the unsaved
   * one rotated away; an entry another process wrote meanwhile (a newer sync, its own rotation) is
   * never replaced. Stops at the first failure: the rest waits for the next recovery.
   */
  async #writeBack(): Promise<void> {
    const store = this.#store;
    if (this.#writingBack || this.#failing) return;
    this.#writingBack = true;
    let written = 0;
    try {
      written = await this.#copy.writeBack((key, entry, ttlMs, superseded) => {
        if (store.setIfAbsentOrSuperseded !== undefined) return this.#within('setIfAbsentOrSuperseded', () => store.setIfAbsentOrSuperseded!(key, entry, ttlMs, superseded));
        if (store.setIfAbsent !== undefined) return this.#within('setIfAbsent', () => store.setIfAbsent!(key, entry, ttlMs));
        // A store that can write neither keeps what it has; the copy stops shadowing it.
        return Promise.resolve(false);
      });
    } catch {
      // The store failed again: what is left stays unsaved, as if the outage had gone on.
    } finally {
      this.#writingBack = false;
    }
    if (written > 0) this.#logger.info('store recovered: wrote back entries synced while it failed', { entries: written });
  }

  /**
   * The store lock `name`, or `undefined` while another holder has it. A failing store's lock is
   * granted in this process (in-process single-flight holds), unless the store is only slow: its
   * calls miss their deadline but it answered (late answers too) within `SLOW_STORE_GRACE_MS`, as
   * on a CPU-starved machine. Another process may hold the lock then, and a vendor call without
   * it would be a duplicate: the caller waits as for another holder (503 `group_busy` at worst).
   */
  tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    return this.#run(
      'tryLock',
      async () => {
        const lock = await this.#store.tryLock(name, ttlMs);
        if (lock === undefined) return undefined;
        // Bounded like every other store call: a request waits for its lock's release.
        const handle: LockHandle = { release: () => this.#within('release', () => lock.release()).catch(() => undefined) };
        if (lock.extend !== undefined) handle.extend = (extraMs) => this.#within('extendLock', () => lock.extend!(extraMs)).catch(() => false);
        return handle;
      },
      () => (this.#lastFailureTimedOut && this.#now() - (this.#answeredAt ?? -Infinity) < SLOW_STORE_GRACE_MS ? undefined : NO_LOCK),
      // The request went on without it: holding it would keep every other process waiting for nothing.
      (late) => void late?.release().catch(() => undefined),
    );
  }

  /** Counts one hit on `key`: at once on a synchronous store, else a promise. A failing store counts in this process. */
  hit(key: string, windowMs: number): MaybePromise<WindowCount> {
    if (this.#sync) {
      try {
        return this.#store.hitNow!(key, windowMs);
      } catch (error) {
        this.#failed('hit', error);
        return this.#copy.hitNow(key, windowMs);
      }
    }
    return this.#run('hit', () => this.#store.hit(key, windowMs), () => this.#copy.hitNow(key, windowMs));
  }

  /**
   * One step of the vendor budget: shared when the store keeps budgets (Redis), else this
   * process's own. While a shared store fails, the step is counted in this process from where
   * the shared budget last stood, and the shared budget is told those calls when it answers
   * again (`BudgetFallback`): an outage, or a store that flaps, never lifts the budget.
   */
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision> {
    const store = this.#store;
    if (store.reserveBudget === undefined) return this.#ownBudget.reserveBudget(key, request);
    if (this.#sync) return store.reserveBudget(key, request);
    const shared = this.#budget.toShared(key, request);
    return this.#run(
      'reserveBudget',
      async () => {
        const decision = await store.reserveBudget!(key, shared.request);
        this.#budget.answered(key, shared.debt, decision);
        return decision;
      },
      () => this.#budget.reserveLocally(key, request),
    );
  }

  /** For `/readyz`: resolves when the store answers within the deadline. */
  ping(timeoutMs: number): Promise<void> {
    return within(timeoutMs, 'ping', () => this.#store.ping());
  }
}

/** The store call, or its failure once it has not answered within `ms` (judged after reading what the store sent meanwhile). */
const within = <T>(ms: number, op: string, call: () => Promise<T>): Promise<T> =>
  withSocketDeadline(call, ms, () => new StoreTimeoutError(`store ${op} did not answer within ${ms} ms`));
