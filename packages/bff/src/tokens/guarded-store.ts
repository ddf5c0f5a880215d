import { withTimeout } from '@embedded-dashboard/protocol';
import type { BffLogger } from '../observability/logger.js';
import { describeError } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { MemoryTokenStore } from '../store/memory.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { BudgetDecision, BudgetRequest } from '../budget/reservation.js';

const NO_LOCK: LockHandle = { release: () => Promise.resolve() };
/** The fallback cache's bounds: entries are a few hundred bytes, so about a few MB at most. */
const FALLBACK_LIMITS = { maxEntries: 10_000, maxCounters: 10_000 };
/**
 * After a store call hangs to its deadline, calls go straight to the fallback for this long.
 * A hung store (a dead Redis Cluster master whose slots no node serves) would otherwise make
 * every call of a request wait out its own deadline, and a request makes several: a request
 * would outlast the BFF's own deadline. A store that fails fast is asked every time.
 */
const HUNG_STORE_BYPASS_MS = 2_000;

class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * The store as the token service sees it: a failing store (Redis down) never fails a request.
 * Entries, rate limits and the vendor budget fall back to a bounded cache in this process's
 * memory (so an outage costs at most one vendor call per group per process, counted against a
 * local budget), locks are granted (in-process single-flight still holds); each failure is
 * counted and the first of a run is logged. The fallback cache is used only while the store
 * fails and is forgotten when it recovers: the shared store is the truth again (a rotation made
 * meanwhile by another process must not be shadowed by an old local entry).
 *
 * A store with the synchronous capability (`peek` and `hitNow`: this process's memory) is read
 * and counted without a promise, which is the BFF's hot path, and runs without a deadline.
 */
export class GuardedStore {
  readonly #store: TokenStore;
  #local: MemoryTokenStore;
  /** This process's budget when the store keeps none (never reset: it is the only budget then). */
  readonly #ownBudget = new MemoryTokenStore({ maxEntries: 1, maxCounters: 1 });
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => number;
  readonly #sync: boolean;
  #failing = false;
  #lastFailureAt: number | undefined;
  /** Until when calls skip a store that hung (epoch ms of `now`). */
  #bypassUntil = 0;

  constructor(store: TokenStore, logger: BffLogger, metrics: BffMetrics, timeoutMs: number, now: () => number) {
    this.#store = store;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#now = now;
    this.#local = new MemoryTokenStore(FALLBACK_LIMITS);
    this.#sync = typeof store.peek === 'function' && typeof store.hitNow === 'function';
    // In-process memory cannot hang; only a remote store needs a deadline (and its timer).
    this.#timeoutMs = this.#sync ? undefined : timeoutMs;
  }

  /**
   * Whether the store is failing now (its last call failed, or it hung and is being skipped):
   * entries then come from this process's fallback cache, and what other processes synced is unknown.
   */
  get degraded(): boolean {
    return this.#failing || this.#bypassUntil > this.#now();
  }

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#now() - this.#lastFailureAt < windowMs;
  }

  #run<T>(op: string, call: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (this.#bypassUntil > this.#now()) return Promise.resolve(fallback());
    const pending = this.#timeoutMs === undefined ? call() : within(this.#timeoutMs, op, call);
    return pending.then(
      (value) => {
        if (this.#failing) {
          this.#failing = false;
          this.#metrics.storeDegraded.set(0);
          this.#logger.info('store recovered', { op });
          const local = this.#local;
          this.#local = new MemoryTokenStore(FALLBACK_LIMITS);
          // Else every customer synced during the outage would cost its sync again right after it.
          void this.#writeBack(local);
        }
        return value;
      },
      (error: unknown) => {
        this.#failed(op, error);
        return fallback();
      },
    );
  }

  #failed(op: string, error: unknown): void {
    this.#metrics.storeFailures.labels(op).inc();
    this.#lastFailureAt = this.#now();
    if (error instanceof StoreTimeoutError) this.#bypassUntil = this.#lastFailureAt + HUNG_STORE_BYPASS_MS;
    if (!this.#failing) {
      this.#failing = true;
      this.#metrics.storeDegraded.set(1);
      this.#logger.warn('store failing: answering from the vendor directly', { op, error: describeError(error) });
    }
  }

  /** The entry under `key`: at once from a synchronous store, else a promise. A failing store reads from the fallback cache. */
  get(key: string): MaybePromise<GroupEntry | undefined> {
    if (this.#sync) {
      try {
        return this.#store.peek!(key);
      } catch (error) {
        this.#failed('get', error);
        return undefined;
      }
    }
    return this.#run('get', () => this.#store.get(key), () => this.#local.peek(key));
  }

  set(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    return this.#run('set', () => this.#store.set(key, entry, ttlMs), () => this.#local.set(key, entry, ttlMs));
  }

  /**
   * Hands the recovered store what this process synced while it failed, where the store holds
   * nothing for the key: an entry another process wrote meanwhile (a rotation, a newer session)
   * is never replaced. Stops at the first failure (the store is failing again).
   */
  async #writeBack(local: MemoryTokenStore): Promise<void> {
    const store = this.#store;
    if (store.setIfAbsent === undefined) return;
    let written = 0;
    try {
      // The fallback cache holds only what was set while the store failed (it is new after each recovery).
      for (const { key, entry, ttlMs } of local.liveEntries()) {
        if (await (this.#timeoutMs === undefined ? store.setIfAbsent(key, entry, ttlMs) : within(this.#timeoutMs, 'setIfAbsent', () => store.setIfAbsent!(key, entry, ttlMs)))) written++;
      }
    } catch {
      // The store failed again: what is left stays unsaved, as if the outage had gone on.
    }
    if (written > 0) this.#logger.info('store recovered: wrote back entries synced while it failed', { entries: written });
  }

  tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    return this.#run(
      'tryLock',
      async () => {
        const lock = await this.#store.tryLock(name, ttlMs);
        if (lock === undefined) return undefined;
        // Bounded like every other store call: a request waits for its lock's release.
        const timeoutMs = this.#timeoutMs;
        return { release: () => (timeoutMs === undefined ? lock.release() : within(timeoutMs, 'release', () => lock.release())).catch(() => undefined) };
      },
      () => NO_LOCK,
    );
  }

  /** Counts one hit on `key`: at once on a synchronous store, else a promise. A failing store counts in this process. */
  hit(key: string, windowMs: number): MaybePromise<WindowCount> {
    if (this.#sync) {
      try {
        return this.#store.hitNow!(key, windowMs);
      } catch (error) {
        this.#failed('hit', error);
        return this.#local.hitNow(key, windowMs);
      }
    }
    return this.#run('hit', () => this.#store.hit(key, windowMs), () => this.#local.hitNow(key, windowMs));
  }

  /**
   * One step of the vendor budget: shared when the store keeps budgets (Redis), else this
   * process's own. While a shared store fails, the step is counted in this process instead, so
   * an outage never lifts the budget.
   */
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision> {
    const store = this.#store;
    if (store.reserveBudget === undefined) return this.#ownBudget.reserveBudget(key, request);
    if (this.#sync) return store.reserveBudget(key, request);
    return this.#run('reserveBudget', () => store.reserveBudget!(key, request), () => this.#local.reserveBudget(key, request));
  }

  /** For `/readyz`: resolves when the store answers within the deadline. */
  ping(timeoutMs: number): Promise<void> {
    return within(timeoutMs, 'ping', () => this.#store.ping());
  }
}

/** The store call, or its failure once it has not answered within `ms`. */
const within = <T>(ms: number, op: string, call: () => Promise<T>): Promise<T> =>
  withTimeout(call, ms, () => new StoreTimeoutError(`store ${op} did not answer within ${ms} ms`));
