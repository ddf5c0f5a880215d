import type { BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { MemoryTokenStore } from '../store/memory.js';
import { LocalCopy } from './local-copy.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { BudgetFallback } from '../vendor-budget/budget-fallback.js';
import type { BudgetDecision, BudgetRequest } from '../vendor-budget/reservation.js';
import { StoreCalls, within } from './store-calls.js';
import { monotonicNow, StoreHealth, StoreSlowError } from './store-health.js';

/** A lock as `GuardedStore` hands it out: the store's own, or (the store lost) one granted in this process. */
export interface GuardedLock extends LockHandle {
  /** Whether the store granted it: false for a lock this process granted itself while the store was lost. */
  readonly shared: boolean;
}

/** Where a write under a lock went: into the store, or only into the local copy while the store is slow or lost. */
export type HeldWrite = 'stored' | 'slow' | 'lost';

const LOCAL_LOCK: GuardedLock = { shared: false, release: () => Promise.resolve() };

/** Calls of the lock protocol ask the store while plain calls skip it, unless it is lost for their key (`StoreHealth`). */
const ASK = true;

/** After the store failed, how long what other processes synced meanwhile may still be on its way to it. */
const WRITE_BACK_GRACE_MS = 10_000;

/**
 * The store as the token service sees it: a failing store (Redis down) never fails a request.
 *
 * While the store fails, entries come from this process's `LocalCopy` (every entry it read from
 * or wrote to the store; bounded, and kept across recoveries so a flapping store costs nothing),
 * rate limits are counted there, the vendor budget continues from where the shared one stood
 * (`BudgetFallback`, charged to the shared budget when it answers), and a store that is lost
 * (not merely slow: `StoreHealth`) has its locks granted in this process (in-process single-flight
 * still holds): an outage costs at most one vendor call per group per process, within the budget.
 * The lock protocol (`tryLock`, `readUnderLock`, `writeUnderLock`) asks the store unless it is lost. The
 * store is asked first whenever it answers; entries set while it failed are written back
 * (`setIfAbsentOrSuperseded`) so a rotation made meanwhile wins over the older entry the store
 * kept, and an entry another process wrote meanwhile is never replaced. Failures are counted and
 * logged by `StoreHealth`.
 *
 * A store with the synchronous capability (`peek` and `hitNow`: this process's memory) is read
 * and counted without a promise, which is the BFF's hot path, and runs without a deadline.
 */
export class GuardedStore {
  readonly #store: TokenStore;
  readonly #copy: LocalCopy;
  /** This process's budget when the store keeps none (it is the only budget then). */
  readonly #ownBudget = new MemoryTokenStore({ maxEntries: 1, maxCounters: 1 });
  /** The shared budget as this process knows it, and its own count while the store fails. */
  readonly #budget: BudgetFallback;
  readonly #calls: StoreCalls;
  readonly #sync: boolean;
  readonly #health: StoreHealth;

  /** `now` is the epoch clock of entries and budgets; `clock` the monotonic one the store's health is judged on. */
  constructor(store: TokenStore, logger: BffLogger, metrics: BffMetrics, timeoutMs: number, now: () => number, clock: () => number = monotonicNow) {
    this.#store = store;
    this.#health = new StoreHealth(clock, logger, metrics);
    this.#budget = new BudgetFallback(now);
    this.#copy = new LocalCopy(now);
    this.#sync = typeof store.peek === 'function' && typeof store.hitNow === 'function';
    // In-process memory cannot hang; only a remote store needs a deadline (and its timer).
    this.#calls = new StoreCalls(store, this.#copy, this.#health, logger, this.#sync ? undefined : timeoutMs);
  }

  /**
   * Whether the store is failing now (its last call failed, or it hung and is being skipped):
   * entries then come from this process's local copy, and what other processes synced is unknown.
   */
  get degraded(): boolean {
    return this.#health.failing || this.#health.skipping;
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
    return this.#health.failedWithin(windowMs);
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
        this.#health.failed('get', key, error, this.#health.now);
        return undefined;
      }
    }
    return this.#calls.run(
      'get',
      key,
      () => this.#read(key),
      () => this.#copy.readFailed(key),
    );
  }

  /**
   * The entry under `key` for the holder of its lock, asked of the store even while plain reads
   * skip it: an entry another process wrote just before this one took the lock is seen, not taken
   * for a miss. When the store does not answer: from the local copy if it is lost, else (slow)
   * {@link StoreSlowError}: the holder waits as for another holder, it does not guess.
   */
  readUnderLock(key: string): Promise<GroupEntry | undefined> {
    if (this.#sync) return Promise.resolve(this.get(key));
    const fallback = () => {
      // The key stays out of the message (it names a customer's group).
      if (!this.#health.lost(key)) throw new StoreSlowError('the store did not answer the read under a lock in time');
      return this.#copy.readFailed(key);
    };
    return this.#calls.run('get', key, () => this.#read(key), fallback, undefined, ASK);
  }

  async #read(key: string): Promise<GroupEntry | undefined> {
    const entry = this.#copy.read(key, await this.#store.get(key));
    if (this.#copy.unsaved) void this.#calls.writeBack();
    return entry;
  }

  set(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    return this.#calls.run(
      'set',
      key,
      () => this.#write(key, entry, ttlMs),
      () => this.#copy.writeFailed(key, entry, ttlMs),
    );
  }

  /**
   * `set` for the holder of the key's lock, asked of the store even while plain calls skip it;
   * resolves where the entry went. An entry the store did not take is kept in the local copy
   * (written back when the store answers again); a holder told `slow` keeps its lock and writes
   * again (`GroupEntries`), so no other process reads the store's miss and calls the vendor.
   */
  writeUnderLock(key: string, entry: GroupEntry, ttlMs: number): Promise<HeldWrite> {
    const fallback = (): HeldWrite => {
      this.#copy.writeFailed(key, entry, ttlMs);
      return this.#health.lost(key) ? 'lost' : 'slow';
    };
    return this.#calls.run('set', key, () => this.#write(key, entry, ttlMs).then((): HeldWrite => 'stored'), fallback, undefined, ASK);
  }

  /** Whether `entry` is still this process's newest for `key` and the store has not taken it (a holder writing again checks first). */
  awaitsWrite(key: string, entry: GroupEntry): boolean {
    return this.#copy.awaitsWrite(key, entry);
  }

  async #write(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    await this.#store.set(key, entry, ttlMs);
    this.#copy.written(key, entry, ttlMs);
  }

  /**
   * The store lock `name`, or `undefined` while another holder has it; asked of the store while
   * plain calls skip it, unless the store is lost for `name` (`StoreHealth`). A lost store's lock
   * is granted in this process (in-process single-flight holds; `store_local_locks_total`); a slow
   * store's is not (another process may hold it): the caller waits as for another holder.
   */
  tryLock(name: string, ttlMs: number): Promise<GuardedLock | undefined> {
    const fallback = () => {
      if (!this.#health.lost(name)) return undefined;
      this.#health.grantedLocally();
      return LOCAL_LOCK;
    };
    return this.#calls.run(
      'tryLock',
      name,
      async () => {
        const lock = await this.#store.tryLock(name, ttlMs);
        if (lock === undefined) return undefined;
        // Bounded like every other store call: a request waits for its lock's release.
        const handle: GuardedLock = { shared: true, release: () => this.#calls.within('release', () => lock.release()).catch(() => undefined) };
        // Rejects when the store does not answer in time (unknown), resolves false when the lock is gone.
        if (lock.extend !== undefined) handle.extend = (extraMs) => this.#calls.within('extendLock', () => lock.extend!(extraMs));
        return handle;
      },
      fallback,
      // The request went on without it: holding it would keep every other process waiting for nothing.
      (late) => void late?.release().catch(() => undefined),
      ASK,
    );
  }

  /** Counts one hit on `key`: at once on a synchronous store, else a promise. A failing store counts in this process. */
  hit(key: string, windowMs: number): MaybePromise<WindowCount> {
    if (this.#sync) {
      try {
        return this.#store.hitNow!(key, windowMs);
      } catch (error) {
        this.#health.failed('hit', key, error, this.#health.now);
        return this.#copy.hitNow(key, windowMs);
      }
    }
    return this.#calls.run(
      'hit',
      key,
      () => this.#store.hit(key, windowMs),
      () => this.#copy.hitNow(key, windowMs),
    );
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
    return this.#calls.run(
      'reserveBudget',
      key,
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
