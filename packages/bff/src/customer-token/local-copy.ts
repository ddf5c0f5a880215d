import { MemoryTokenStore } from '../store/memory.js';
import type { GroupEntry, WindowCount } from '../store/types.js';
import { LruMap } from '../util/lru-map.js';

/** The local copy's bounds: entries are a few hundred bytes, so about a few MB at most. */
const LIMITS = { maxEntries: 10_000, maxCounters: 10_000 };

/** How long an entry read from the store is kept (the BFF's default entry lifetime; it serves only while the store fails, or after the store lost it). */
const READ_TTL_MS = 86_400_000;

/** An entry the shared store has not been given, and when it expires. */
interface Unsaved {
  expiresAt: number;
}

/** Tokens remembered as rotated away, per key: enough for the rotations of one outage (one per 10 s per group). */
const DEAD_PER_KEY = 8;

/** Writes one unsaved entry where the store holds none or one whose token is `superseded`; resolves whether it did. */
export type WriteBack = (key: string, entry: GroupEntry, ttlMs: number, superseded: string[]) => Promise<boolean>;

/**
 * What one process keeps of the shared store in its own memory, for `GuardedStore`: every entry
 * it read from or wrote to the store, the entries it set while the store failed (until the store
 * has them), and rate-limit counts while the store fails. Bounded, and never dropped when the
 * store recovers: a store that flaps every second must not cost every customer a vendor call at
 * every flap.
 */
export class LocalCopy {
  readonly #entries = new MemoryTokenStore(LIMITS);
  readonly #unsaved = new Map<string, Unsaved>();
  /** Keys whose last read did not reach the store (answered from here), until one does. */
  readonly #unreadable = new LruMap<string, true>(LIMITS.maxEntries);
  /**
   * Per key, the tokens this process saw rotated away (every entry's `previousToken`: the vendor
   * replaces a token only by rotating it). A store that answers one of them went back in time
   * (a failover lost the write), and a write-back may replace an entry holding one.
   */
  readonly #dead = new LruMap<string, string[]>(LIMITS.maxEntries);
  readonly #now: () => number;

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Whether the last read of `key` did not reach the store. */
  unreadable(key: string): boolean {
    return this.#unreadable.get(key) !== undefined;
  }

  /** Whether entries wait to be handed to the store. */
  get unsaved(): boolean {
    return this.#unsaved.size > 0;
  }

  /** The read of `key` did not reach the store: the copy's entry, as it is. */
  readFailed(key: string): GroupEntry | undefined {
    this.#unreadable.set(key, true);
    return this.#entries.peek(key);
  }

  /**
   * The store answered `stored` for `key`; what to hand out:
   * - the copy's entry while it is unsaved (the store may still hold the entry it replaces);
   * - the copy's entry when the store holds a token this process saw rotated away (the store
   *   went back in time: a failover lost writes that had not reached the replica); it becomes
   *   unsaved again, to be written back;
   * - otherwise the store's entry, kept in the copy;
   * - and when the store has nothing, the copy's entry due for revalidation (`syncedAt: 0`): the
   *   store lost it (restarted empty), so it is served only while the vendor budget is tight.
   */
  read(key: string, stored: GroupEntry | undefined): GroupEntry | undefined {
    this.#unreadable.delete(key);
    const copy = this.#entries.peek(key);
    if (copy !== undefined && this.#unsaved.has(key)) return copy;
    if (stored === undefined) return copy === undefined ? undefined : { ...copy, syncedAt: 0 };
    const dead = this.#dead.get(key);
    if (copy !== undefined && dead?.includes(stored.token) && !dead.includes(copy.token)) {
      this.#markUnsaved(key, copy, READ_TTL_MS);
      return copy;
    }
    this.#noteDead(key, stored);
    if (copy === undefined || !sameEntry(copy, stored)) void this.#entries.set(key, stored, READ_TTL_MS);
    return stored;
  }

  #noteDead(key: string, entry: GroupEntry): void {
    if (entry.previousToken === null) return;
    const dead = this.#dead.get(key) ?? [];
    if (dead.includes(entry.previousToken)) return;
    this.#dead.set(key, [...dead, entry.previousToken].slice(-DEAD_PER_KEY));
  }

  /** The store took `entry`. */
  written(key: string, entry: GroupEntry, ttlMs: number): void {
    this.#noteDead(key, entry);
    void this.#entries.set(key, entry, ttlMs);
    this.#unsaved.delete(key);
  }

  /** The store failed to take `entry`: kept here, and handed to the store when it answers again. */
  writeFailed(key: string, entry: GroupEntry, ttlMs: number): void {
    void this.#entries.set(key, entry, ttlMs);
    this.#markUnsaved(key, entry, ttlMs);
  }

  #markUnsaved(key: string, entry: GroupEntry, ttlMs: number): void {
    this.#noteDead(key, entry);
    // A new object per write: a write-back under way knows the key was set again meanwhile.
    this.#unsaved.set(key, { expiresAt: this.#now() + ttlMs });
  }

  /** Whether `entry` is the copy's entry for `key` and the store has not been given it yet. */
  awaitsWrite(key: string, entry: GroupEntry): boolean {
    const copy = this.#entries.peek(key);
    return this.#unsaved.has(key) && copy !== undefined && sameEntry(copy, entry);
  }

  /** A rate-limit hit counted here while the store fails. */
  hitNow(key: string, windowMs: number): WindowCount {
    return this.#entries.hitNow(key, windowMs);
  }

  /**
   * Hands the store every unsaved entry through `write`; stops at the first failure (the store
   * is failing again: the rest waits for the next recovery). Resolves how many the store took.
   */
  async writeBack(write: WriteBack): Promise<number> {
    let written = 0;
    for (const [key, unsaved] of [...this.#unsaved]) {
      const entry = this.#entries.peek(key);
      const ttlMs = unsaved.expiresAt - this.#now();
      const superseded = (this.#dead.get(key) ?? []).filter((token) => token !== entry?.token);
      if (entry !== undefined && ttlMs > 0 && (await write(key, entry, ttlMs, superseded))) written++;
      // Set again meanwhile: that write is the one to keep.
      if (this.#unsaved.get(key) === unsaved) this.#unsaved.delete(key);
    }
    return written;
  }
}

/** Whether two entries say the same (the copy is not rewritten at every read). */
const sameEntry = (a: GroupEntry, b: GroupEntry): boolean =>
  a.token === b.token &&
  a.syncedAt === b.syncedAt &&
  a.fingerprint === b.fingerprint &&
  a.lastRotatedAt === b.lastRotatedAt &&
  a.claimsIssuedAt === b.claimsIssuedAt;
