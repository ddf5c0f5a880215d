import type { GroupEntry } from '../store/types.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { GuardedStore } from './guarded-store.js';

export interface GroupEntriesSettings {
  /** The upstream's `accountId`: entries of any other account are misses. */
  account: string | undefined;
  entryTtlMs: number;
  lockTtlMs: number;
  /** How long a process waits for another one's result before it goes ahead (or gives up). */
  lockWaitMs: number;
  pollIntervalMs: number;
  sleep: (ms: number) => Promise<void>;
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

  /** Whether the shared store is failing now: what other processes synced is unknown. */
  get degraded(): boolean {
    return this.#store.degraded;
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
   * Runs `work` holding the store lock `name` (one holder across the processes sharing the
   * store), or `elsewhere` when another process holds it.
   */
  async withLock<T>(name: string, work: () => Promise<T>, elsewhere: () => Promise<T>): Promise<T> {
    const lock = await this.#store.tryLock(name, this.#s.lockTtlMs);
    if (lock === undefined) return elsewhere();
    try {
      return await work();
    } finally {
      await lock.release();
    }
  }

  /** Polls the entry under `key` until `done` accepts it; `undefined` when the lock's wait is over first. */
  async waitFor(key: string, done: (entry: GroupEntry) => boolean): Promise<GroupEntry | undefined> {
    // Counted polls, not a deadline: an injected clock that stands still must not wait forever.
    for (let polls = Math.ceil(this.#s.lockWaitMs / this.#s.pollIntervalMs); polls > 0; polls -= 1) {
      await this.#s.sleep(this.#s.pollIntervalMs);
      const entry = await this.read(key);
      if (entry !== undefined && done(entry)) return entry;
    }
    return undefined;
  }
}
