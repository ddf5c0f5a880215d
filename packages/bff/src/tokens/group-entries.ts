import { BffError } from '../errors/bff-error.js';
import type { GroupEntry, LockHandle } from '../store/types.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { GuardedStore } from './guarded-store.js';

export interface GroupEntriesSettings {
  /** The upstream's `accountId`: entries of any other account are misses. */
  account: string | undefined;
  entryTtlMs: number;
  /** A lock's lifetime; renewed every third of it while its holder works, so a holder that dies frees it within this. */
  lockTtlMs: number;
  /** How long a process waits for another one's result before it answers 503 (retryable). */
  lockWaitMs: number;
  /** The first poll's interval; it doubles up to {@link MAX_POLL_INTERVAL_MS}. */
  pollIntervalMs: number;
  sleep: (ms: number) => Promise<void>;
}

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

/**
 * The store's group entries as the token service sees them, shared with the other processes of
 * the fleet: only this vendor account's entries, and one process at a time for the work on a
 * group (a store lock), the others polling the group's entry for what the holder writes.
 */
export class GroupEntries {
  readonly #store: GuardedStore;
  readonly #s: GroupEntriesSettings;

  constructor(store: GuardedStore, settings: GroupEntriesSettings) {
    this.#store = store;
    this.#s = settings;
  }

  /** Whether the store could not say what it holds for `key` just now: what other processes synced for it is unknown. */
  degradedFor(key: string): boolean {
    return this.#store.degradedFor(key);
  }

  /**
   * The entry under `key` when it belongs to this BFF's vendor account. An entry of another
   * account (a store shared with a deployment using another API token or vendor, even under the
   * same key) is a miss: its tokens are not ours to hand out, nor to rotate.
   */
  read(key: string): MaybePromise<GroupEntry | undefined> {
    return andThen(this.#store.get(key), this.#ours);
  }

  readonly #ours = (entry: GroupEntry | undefined): GroupEntry | undefined =>
    entry === undefined || entry.account !== this.#s.account ? undefined : entry;

  /** Stores `entry` under `key` as this vendor account's, for `ttlMs` (default: a group entry's time). */
  write(key: string, entry: GroupEntry, ttlMs = this.#s.entryTtlMs): Promise<void> {
    if (this.#s.account !== undefined) entry.account = this.#s.account;
    return this.#store.set(key, entry, ttlMs);
  }

  /**
   * Runs `work` holding the store lock `name`: one holder across the processes sharing the store.
   * While another process holds it, polls the entry under `key` until `done` accepts it (then
   * that entry is the answer), and takes the lock itself as soon as it is free: the holder
   * finished without the entry `done` wants (a deferred call, a failure) or died (its lock, no
   * longer renewed, expired). Never works without the lock: a second vendor call for the group
   * while the first is under way would be a duplicate, and its own budget wait and call would
   * come on top of the wait, past the request's deadline. When `lockWaitMs` is over first,
   * throws {@link BusyError} (503, retry after 1 s).
   */
  async exclusive<T>(name: string, key: string, done: (entry: GroupEntry) => boolean, work: () => Promise<T>, what: string): Promise<T | GroupEntry> {
    // Counted sleeps, not a deadline: an injected clock that stands still must not wait forever.
    let waited = 0;
    for (let interval = this.#s.pollIntervalMs; ; interval = Math.min(interval * 2, MAX_POLL_INTERVAL_MS)) {
      const lock = await this.#store.tryLock(name, this.#s.lockTtlMs);
      if (lock !== undefined) return this.#holding(lock, work);
      if (waited >= this.#s.lockWaitMs) throw new BusyError(what);
      const pause = Math.min(interval, this.#s.lockWaitMs - waited);
      await this.#s.sleep(pause);
      waited += pause;
      const entry = await this.read(key);
      if (entry !== undefined && done(entry)) return entry;
    }
  }

  /** Runs `work` with `lock` held, renewing it every third of its lifetime, and releases it. */
  async #holding<T>(lock: LockHandle, work: () => Promise<T>): Promise<T> {
    const ttlMs = this.#s.lockTtlMs;
    const renewal = lock.extend === undefined ? undefined : setInterval(() => void lock.extend!(ttlMs).catch(() => false), Math.max(1, ttlMs / 3));
    renewal?.unref?.();
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      await lock.release();
    }
  }
}
