import type { GroupEntry } from '../store/types.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { FleetLock, type FleetLockSettings, type HeldEntry } from './fleet-lock.js';
import type { GuardedStore } from './guarded-store.js';

export interface GroupEntriesSettings extends FleetLockSettings {
  /** The upstream's `accountId`: entries of any other account are misses. */
  account: string | undefined;
  now: () => number;
}

/**
 * The store's group entries as the token service sees them, shared with the other processes of
 * the fleet: only this vendor account's entries, read and written stamped with it. The work on a
 * group goes one process at a time through the fleet lock (`fleet-lock.ts`), the others polling
 * the group's entry (read here) for what the holder writes.
 */
export class GroupEntries {
  readonly #store: GuardedStore;
  readonly #s: GroupEntriesSettings;
  readonly #lock: FleetLock;

  constructor(store: GuardedStore, settings: GroupEntriesSettings) {
    this.#store = store;
    this.#s = settings;
    this.#lock = new FleetLock(store, { read: (key) => this.read(key), ours: this.#ours, stamped: (entry) => this.#stamped(entry) }, settings);
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

  readonly #ours = (entry: GroupEntry | undefined): GroupEntry | undefined => (entry === undefined || entry.account !== this.#s.account ? undefined : entry);

  /** Stores `entry` under `key` as this vendor account's, for `ttlMs` (default: a group entry's time). */
  write(key: string, entry: GroupEntry, ttlMs = this.#s.entryTtlMs): Promise<void> {
    return this.#store.set(key, this.#stamped(entry), ttlMs);
  }

  #stamped(entry: GroupEntry): GroupEntry {
    if (this.#s.account !== undefined) entry.account = this.#s.account;
    return entry;
  }

  /** Runs `work` holding the fleet lock `name` for the group under `key`: see {@link FleetLock.exclusive}. */
  exclusive<T>(name: string, key: string, done: (entry: GroupEntry) => boolean, work: (held: HeldEntry) => Promise<T>, what: string): Promise<T | GroupEntry> {
    return this.#lock.exclusive(name, key, done, work, what);
  }
}
