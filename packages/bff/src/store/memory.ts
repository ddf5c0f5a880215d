import { LruMap } from '../util/lru-map.js';
import { reserve, type BudgetDecision, type BudgetRequest } from '../vendor-budget/reservation.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from './types.js';

export interface MemoryStoreOptions {
  /** Most group entries kept; the least recently used goes first. Default 10 000. */
  maxEntries?: number;
  /** Most rate-limit counters kept (one per session and route). Default 50 000. */
  maxCounters?: number;
  /** Clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

interface Stored<T> {
  value: T;
  expiresAt: number;
}

interface Counter {
  count: number;
  windowEndsAt: number;
}

/** A time-to-live or window must be a positive, finite number of milliseconds (as Redis's `PX` needs). */
const checkMs = (name: string, value: number): number => {
  if (typeof value !== 'number' || !(value > 0) || value === Number.POSITIVE_INFINITY) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
};

/**
 * The default `TokenStore`: one process's memory. Bounded (LRU), entries expire, locks have an
 * owner and a time-to-live, rate limits are fixed windows. Expired data is dropped lazily when
 * touched, so the store runs no timers and needs no `close()` to let a process exit.
 *
 * @example
 * ```ts
 * const store = createMemoryStore({ maxEntries: 50_000 });
 * const app = createBffApp({ ...options, store });
 * ```
 */
export class MemoryTokenStore implements TokenStore {
  readonly #entries: LruMap<string, Stored<GroupEntry>>;
  readonly #counters: LruMap<string, Counter>;
  readonly #locks = new Map<string, Stored<symbol>>();
  readonly #budgets = new Map<string, number>();
  readonly #now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#entries = new LruMap(options.maxEntries ?? 10_000);
    this.#counters = new LruMap(options.maxCounters ?? 50_000);
    this.#now = options.now ?? Date.now;
  }

  /** The vendor budget of this process (one `tat` per budget key; there is one per vendor account). */
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision> {
    const { tat, decision } = reserve(this.#budgets.get(key) ?? 0, this.#now(), request);
    this.#budgets.set(key, tat);
    return Promise.resolve(decision);
  }

  get(groupKey: string): Promise<GroupEntry | undefined> {
    return Promise.resolve(this.peek(groupKey));
  }

  /** `get` without the promise (the optional `TokenStore.peek`): the BFF's hot path asks this store synchronously. */
  peek(groupKey: string): GroupEntry | undefined {
    const stored = this.#entries.get(groupKey);
    if (stored === undefined) return undefined;
    if (stored.expiresAt <= this.#now()) {
      this.#entries.delete(groupKey);
      return undefined;
    }
    return stored.value;
  }

  async set(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    // A frozen copy: callers share the object we hand out, and none may change it under another.
    this.#entries.set(groupKey, { value: Object.freeze({ ...entry }), expiresAt: this.#now() + checkMs('ttlMs', ttlMs) });
  }

  /** Stores the entry only where no live one is (the optional `TokenStore.setIfAbsent`); resolves whether it did. */
  async setIfAbsent(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean> {
    checkMs('ttlMs', ttlMs);
    if (this.peek(groupKey) !== undefined) return false;
    await this.set(groupKey, entry, ttlMs);
    return true;
  }

  /** The optional `TokenStore.setIfAbsentOrSuperseded`: stores the entry where none is, or where the stored token is one of `superseded`. */
  async setIfAbsentOrSuperseded(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean> {
    checkMs('ttlMs', ttlMs);
    const stored = this.peek(groupKey);
    if (stored !== undefined && !superseded.includes(stored.token)) return false;
    await this.set(groupKey, entry, ttlMs);
    return true;
  }

  delete(groupKey: string): Promise<void> {
    this.#entries.delete(groupKey);
    return Promise.resolve();
  }

  async tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    checkMs('ttlMs', ttlMs);
    const now = this.#now();
    const held = this.#locks.get(name);
    if (held !== undefined && held.expiresAt > now) return undefined;
    const owner = Symbol(name);
    this.#locks.set(name, { value: owner, expiresAt: now + ttlMs });
    const locks = this.#locks;
    const clock = this.#now;
    return {
      async release(): Promise<void> {
        if (locks.get(name)?.value === owner) locks.delete(name);
      },
      async extend(extraMs: number): Promise<boolean> {
        checkMs('ttlMs', extraMs);
        const current = locks.get(name);
        if (current?.value !== owner || current.expiresAt <= clock()) return false;
        current.expiresAt = clock() + extraMs;
        return true;
      },
    };
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.hitNow(key, windowMs);
  }

  /** `hit` without the promise (the optional `TokenStore.hitNow`), for the hot path. */
  hitNow(key: string, windowMs: number): WindowCount {
    checkMs('windowMs', windowMs);
    const now = this.#now();
    let counter = this.#counters.get(key);
    if (counter === undefined || counter.windowEndsAt <= now) {
      counter = { count: 0, windowEndsAt: now + windowMs };
      this.#counters.set(key, counter);
    }
    counter.count += 1;
    return { count: counter.count, resetInMs: counter.windowEndsAt - now };
  }

  ping(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.#entries.clear();
    this.#counters.clear();
    this.#locks.clear();
    return Promise.resolve();
  }
}

/** Creates the default in-memory store. See {@link MemoryTokenStore}. */
export function createMemoryStore(options: MemoryStoreOptions = {}): MemoryTokenStore {
  return new MemoryTokenStore(options);
}
