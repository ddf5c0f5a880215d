import type { BffLogger } from '../observability/logger.js';
import { describeError } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { MemoryTokenStore } from '../store/memory.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { BudgetFallback } from '../budget/budget-fallback.js';
import type { BudgetDecision, BudgetRequest } from '../budget/reservation.js';
import { withSocketDeadline } from '../util/deadline.js';

const NO_LOCK: LockHandle = { release: () => Promise.resolve() };

/** The local copy's bounds: entries are a few hundred bytes, so about a few MB at most. */
const LOCAL_LIMITS = { maxEntries: 10_000, maxCounters: 10_000 };

/** How long an entry read from the store is kept in the local copy (it serves only while the store fails or after it lost the entry). */
const COPY_TTL_MS = 3_600_000;

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

/** An entry set while the store failed, not yet handed to it: the tokens it knows were rotated away, and when it expires. */
interface Unsaved {
  superseded: Set<string>;
  expiresAt: number;
}

/**
 * The store as the token service sees it: a failing store (Redis down) never fails a request.
 *
 * It keeps a bounded local copy in this process's memory of every entry it read from or wrote to
 * the store, and counts rate limits and the vendor budget there while the store fails (so an
 * outage costs at most one vendor call per group per process, within the budget). The copy
 * survives the store's recovery (a store that flaps every second must not cost a vendor call per
 * customer per flap, nor a fresh budget): the store is asked first whenever it answers, and the
 * copy is used only
 * - while the store fails: its entries are served as they are;
 * - when the store answers with nothing for a key the copy holds (the store lost it: a Redis
 *   restarted empty, a failover before replication): the copy's entry is handed out as due for
 *   revalidation (`syncedAt: 0`), so the token service serves it while the vendor budget is
 *   tight and re-reads the group at the lowest priority otherwise.
 * Entries set while the store failed (a sync, a rotation) are written back when it answers again,
 * where it holds none for the key or one whose token they rotated away
 * (`setIfAbsentOrSuperseded`): a rotation made meanwhile wins over the older entry the store kept,
 * and an entry another process wrote meanwhile is never replaced. Until its write-back is done,
 * such an entry is served from the copy. Locks are granted while the store fails (in-process
 * single-flight still holds); each failure is counted and the first of a run is logged.
 *
 * A store with the synchronous capability (`peek` and `hitNow`: this process's memory) is read
 * and counted without a promise, which is the BFF's hot path, and runs without a deadline.
 */
export class GuardedStore {
  readonly #store: TokenStore;
  readonly #local = new MemoryTokenStore(LOCAL_LIMITS);
  readonly #unsaved = new Map<string, Unsaved>();
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
  /** Until when calls skip a store that hung (epoch ms of `now`). */
  #bypassUntil = 0;

  constructor(store: TokenStore, logger: BffLogger, metrics: BffMetrics, timeoutMs: number, now: () => number) {
    this.#store = store;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#now = now;
    this.#budget = new BudgetFallback(now);
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

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#now() - this.#lastFailureAt < windowMs;
  }

  #run<T>(op: string, call: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    if (this.#bypassUntil > this.#now()) return Promise.resolve(fallback());
    return this.#within(op, call).then(
      (value) => {
        if (this.#failing) {
          this.#failing = false;
          this.#metrics.storeDegraded.set(0);
          this.#logger.info('store recovered', { op });
          // Else every customer synced during the outage would cost its sync again right after it.
          void this.#writeBack();
        }
        return value;
      },
      (error: unknown) => {
        this.#failed(op, error);
        return fallback();
      },
    );
  }

  #within<T>(op: string, call: () => Promise<T>): Promise<T> {
    return this.#timeoutMs === undefined ? call() : within(this.#timeoutMs, op, call);
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
        const stored = await this.#store.get(key);
        const copy = this.#local.peek(key);
        // Not yet written back: the store may still hold the entry this one replaces.
        if (this.#unsaved.has(key) && copy !== undefined) return copy;
        if (stored !== undefined) {
          if (copy === undefined || !sameEntry(copy, stored)) void this.#local.set(key, stored, COPY_TTL_MS);
          return stored;
        }
        return copy === undefined ? undefined : { ...copy, syncedAt: 0 };
      },
      () => this.#local.peek(key),
    );
  }

  set(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    return this.#run(
      'set',
      async () => {
        await this.#store.set(key, entry, ttlMs);
        await this.#local.set(key, entry, Math.min(ttlMs, COPY_TTL_MS));
        this.#unsaved.delete(key);
      },
      async () => {
        await this.#local.set(key, entry, ttlMs);
        const unsaved = this.#unsaved.get(key) ?? { superseded: new Set<string>(), expiresAt: 0 };
        if (entry.previousToken !== null) unsaved.superseded.add(entry.previousToken);
        unsaved.superseded.delete(entry.token);
        unsaved.expiresAt = this.#now() + ttlMs;
        this.#unsaved.set(key, unsaved);
      },
    );
  }

  /**
   * Hands the recovered store what this process set while it failed (`setIfAbsentOrSuperseded`,
   * else `setIfAbsent`): where the store holds nothing for the key, or an entry whose token the
   * unsaved one rotated away; an entry another process wrote meanwhile (a newer sync, its own
   * rotation) is never replaced. Stops at the first failure (the store is failing again: the
   * rest waits for the next recovery).
   */
  async #writeBack(): Promise<void> {
    if (this.#writingBack) return;
    this.#writingBack = true;
    const store = this.#store;
    let written = 0;
    try {
      for (const [key, unsaved] of [...this.#unsaved]) {
        const entry = this.#local.peek(key);
        const ttlMs = unsaved.expiresAt - this.#now();
        let done = true;
        if (entry !== undefined && ttlMs > 0) {
          const superseded = [...unsaved.superseded];
          if (store.setIfAbsentOrSuperseded !== undefined) done = await this.#within('setIfAbsentOrSuperseded', () => store.setIfAbsentOrSuperseded!(key, entry, ttlMs, superseded));
          else if (store.setIfAbsent !== undefined) done = await this.#within('setIfAbsent', () => store.setIfAbsent!(key, entry, ttlMs));
          if (done) written++;
        }
        // Set again meanwhile (the store failed again, or answered): that write is the one to keep.
        if (this.#unsaved.get(key) === unsaved) this.#unsaved.delete(key);
      }
    } catch {
      // The store failed again: what is left stays unsaved, as if the outage had gone on.
    } finally {
      this.#writingBack = false;
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
        return { release: () => this.#within('release', () => lock.release()).catch(() => undefined) };
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

/** Whether two entries say the same (the local copy is not rewritten for every read). */
const sameEntry = (a: GroupEntry, b: GroupEntry): boolean =>
  a.token === b.token && a.syncedAt === b.syncedAt && a.fingerprint === b.fingerprint && a.lastRotatedAt === b.lastRotatedAt && a.claimsIssuedAt === b.claimsIssuedAt;

/** The store call, or its failure once it has not answered within `ms` (judged after reading what the store sent meanwhile). */
const within = <T>(ms: number, op: string, call: () => Promise<T>): Promise<T> =>
  withSocketDeadline(call, ms, () => new StoreTimeoutError(`store ${op} did not answer within ${ms} ms`));
