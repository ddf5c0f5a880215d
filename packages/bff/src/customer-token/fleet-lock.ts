import { BffError } from '../errors/bff-error.js';
import type { GroupEntry } from '../store/types.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import type { GuardedLock, GuardedStore } from './guarded-store.js';
import { monotonicNow, StoreSlowError } from './store-health.js';

/*
 * The fleet lock protocol: one process at a time works on a group (a vendor call and the entry it
 * writes) across every process sharing the store. The holder renews its store lock while it works
 * and releases it once the store has what it wrote; the others poll the group's entry for the
 * holder's result and take the lock when it frees. `GroupEntries` is how the token service uses it.
 */

export interface FleetLockSettings {
  /** A group entry's lifetime in the store. */
  entryTtlMs: number;
  /** A lock's lifetime; renewed every third of it while its holder works, so a holder that dies frees it within this. */
  lockTtlMs: number;
  /** How long a process waits for another one's result before it answers 503 (retryable). */
  lockWaitMs: number;
  /** The first poll's interval; it doubles up to {@link MAX_POLL_INTERVAL_MS}. */
  pollIntervalMs: number;
  sleep: (ms: number) => Promise<void>;
  /** The monotonic clock bounding a waiter's wait and a holder's writing again (default `performance.now`). */
  clock?: () => number;
}

/** The entry under a lock's key, for the work done holding it (`GroupEntries.exclusive`). */
export interface HeldEntry {
  /** The entry, asked of the store itself (never its skip); see `GuardedStore.readUnderLock`. */
  read(): Promise<GroupEntry | undefined>;
  /** Stores the entry (default lifetime: a group entry's); the lock is released only once the store has it (or is known lost). */
  write(entry: GroupEntry, ttlMs?: number): Promise<void>;
}

/** How many times a holder whose write the slow store did not take writes again before it leaves its lock to expire. */
const MAX_WRITE_ATTEMPTS = 8;

/** The longest pause between two polls of a waiting process. */
const MAX_POLL_INTERVAL_MS = 200;

/**
 * A waiting process's answer when its wait is over: the holder is still at work (or died, and its
 * lock has not expired yet). A refusal on purpose (`group_busy`): the retry is served by the
 * holder's result, and a burst of new customers meets many of them.
 */
export class BusyError extends BffError {
  constructor(what: string) {
    super('upstream_unavailable', `another process is ${what}; retry shortly`, { retryAfterSeconds: 1, refusal: 'group_busy' });
  }
}

/** The account-scoped entry reads and stamping the lock protocol needs from `GroupEntries`. */
export interface AccountEntries {
  read(key: string): MaybePromise<GroupEntry | undefined>;
  /** The entry when it is this vendor account's, else `undefined`. */
  ours(entry: GroupEntry | undefined): GroupEntry | undefined;
  /** The entry stamped as this vendor account's. */
  stamped(entry: GroupEntry): GroupEntry;
}

/** The store lock of a group across the fleet, and the work done holding it. */
export class FleetLock {
  readonly #store: GuardedStore;
  readonly #entries: AccountEntries;
  readonly #s: FleetLockSettings;
  readonly #clock: () => number;

  constructor(store: GuardedStore, entries: AccountEntries, settings: FleetLockSettings) {
    this.#store = store;
    this.#entries = entries;
    this.#s = settings;
    this.#clock = settings.clock ?? monotonicNow;
  }

  /**
   * Runs `work` holding the store lock `name`: one holder across the processes sharing the store.
   * While another process holds it, polls the entry under `key` until `done` accepts it (then
   * that entry is the answer), and takes the lock itself as soon as it is free: the holder
   * finished without the entry `done` wants (a deferred call, a failure) or died (its lock, no
   * longer renewed, expired). Never works without the lock: a second vendor call for the group
   * while the first is under way would be a duplicate, and its own budget wait and call would
   * come on top of the wait, past the request's deadline. When `lockWaitMs` is over first (by
   * the monotonic clock, store calls included, or by the sleeps counted, whichever is first: a
   * test's clock may stand still), throws {@link BusyError} (503, retry after 1 s).
   *
   * `work` reads and writes the entry through its {@link HeldEntry}, which asks the store itself:
   * a re-read a slow store did not answer releases the lock and waits as for another holder; a
   * write it did not take keeps the lock (see `#keepWriting`).
   */
  async exclusive<T>(
    name: string,
    key: string,
    done: (entry: GroupEntry) => boolean,
    work: (held: HeldEntry) => Promise<T>,
    what: string,
  ): Promise<T | GroupEntry> {
    const started = this.#clock();
    let slept = 0;
    for (let interval = this.#s.pollIntervalMs; ; interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS)) {
      const lock = await this.#store.tryLock(name, this.#s.lockTtlMs);
      if (lock !== undefined) {
        try {
          return await this.#holding(lock, key, work);
        } catch (error) {
          if (!(error instanceof StoreSlowError)) throw error;
        }
      }
      const waited = Math.max(slept, this.#clock() - started);
      if (waited >= this.#s.lockWaitMs) throw new BusyError(what);
      const pause = Math.min(interval, this.#s.lockWaitMs - waited);
      await this.#s.sleep(pause);
      slept += pause;
      const entry = await this.#entries.read(key);
      if (entry !== undefined && done(entry)) return entry;
    }
  }

  /** Runs `work` with `lock` held, renewing it every third of its lifetime, and releases it once the store has what `work` wrote. */
  async #holding<T>(lock: GuardedLock, key: string, work: (held: HeldEntry) => Promise<T>): Promise<T> {
    const ttlMs = this.#s.lockTtlMs;
    // A renewal the store refuses (false: the lock expired, or a failover lost it) ends the renewals; one it did not answer is tried again.
    const renew = () =>
      void lock.extend!(ttlMs).then(
        (owned) => owned || clearInterval(renewal),
        () => undefined,
      );
    const renewal = lock.extend === undefined ? undefined : setInterval(renew, Math.max(1, ttlMs / 3));
    renewal?.unref?.();
    let unsaved: { entry: GroupEntry; ttlMs: number } | undefined;
    const held: HeldEntry = {
      read: () => this.#store.readUnderLock(key).then(this.#entries.ours),
      write: async (entry, entryTtlMs = this.#s.entryTtlMs) => {
        const stamped = this.#entries.stamped(entry);
        unsaved = (await this.#store.writeUnderLock(key, stamped, entryTtlMs)) === 'slow' ? { entry: stamped, ttlMs: entryTtlMs } : undefined;
      },
    };
    let result: T;
    try {
      result = await work(held);
    } catch (error) {
      clearInterval(renewal);
      await lock.release();
      throw error;
    }
    if (unsaved === undefined || !lock.shared) {
      clearInterval(renewal);
      await lock.release();
    } else {
      void this.#keepWriting(lock, key, unsaved, () => clearInterval(renewal));
    }
    return result;
  }

  /**
   * The holder's write did not reach a slow store: its entry is only in this process's copy. The
   * caller is answered; the lock is kept (renewed) while the entry is written again, and released
   * once the store has it. Released earlier, the next process would read the store's miss and
   * call the vendor again. Each write again is fenced by the lock: it is renewed first (`extend`),
   * and a lock the store says is gone (expired while this process stalled, lost in a failover:
   * another process may hold it and have written a newer entry) ends the writing, as does a store
   * lost meanwhile, {@link MAX_WRITE_ATTEMPTS} or a lock's lifetime (monotonic clock): the entry
   * then waits in the copy for the write-back, which never replaces an entry another process
   * wrote. A renewal the store does not answer skips that attempt. A lock without `extend` cannot
   * be checked: no write again.
   */
  async #keepWriting(lock: GuardedLock, key: string, unsaved: { entry: GroupEntry; ttlMs: number }, stopRenewal: () => void): Promise<void> {
    const since = this.#clock();
    let pause = this.#s.pollIntervalMs;
    for (let attempt = 1; lock.extend !== undefined && attempt <= MAX_WRITE_ATTEMPTS && this.#clock() - since < this.#s.lockTtlMs; attempt++) {
      await this.#s.sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_INTERVAL_MS);
      // Written back meanwhile (the store answered again), or replaced by a newer write of this process: nothing left to write.
      let outcome = this.#store.awaitsWrite(key, unsaved.entry) ? undefined : 'stored';
      if (outcome === undefined) {
        const owned = await lock.extend(this.#s.lockTtlMs).catch(() => undefined);
        if (owned === false) break; // gone: not ours to write under, nor to release
        if (owned === undefined) continue; // the store did not say: not written unfenced
        outcome = await this.#store.writeUnderLock(key, unsaved.entry, unsaved.ttlMs);
      }
      if (outcome === 'stored') {
        stopRenewal();
        await lock.release();
        return;
      }
      if (outcome === 'lost') break;
    }
    stopRenewal();
  }
}
