import { DurableObject } from 'cloudflare:workers';
import { reserve, type BudgetDecision, type BudgetRequest } from '../vendor-budget/reservation.js';
import { decodeEntry } from '../store/entry-codec.js';

/** What one object keeps: the value of its one store key and when it stops counting. */
interface Stored {
  /** An encoded entry, a lock's owner, a window's count, or the budget's `tat`. */
  value: string | number;
  /** Epoch ms on this object's clock. */
  expiresAt: number;
}

/** A budget's `tat` counts this long after it has passed (as the Redis store keeps its key); then the bucket is full again either way. */
const BUDGET_KEPT_MS = 60_000;
const positiveMs = (value: unknown): number => {
  if (typeof value !== 'number' || !(value > 0) || value === Number.POSITIVE_INFINITY) throw new TypeError('ms must be a positive number of milliseconds');
  return value;
};

/**
 * The BFF's store as Durable Objects (ARCHITECTURE §8.1): one object per store key, named by the
 * key (`createDurableObjectStore`), so each group's entry, each lock, each session's counter and
 * each vendor account's budget live in an object of their own and the store scales with customers.
 * An object runs one call at a time against its storage (input gates), so every method here is
 * atomic, and answers only once what it wrote is durable (output gates): nothing acknowledged is
 * lost when the object restarts. The budget is GCRA on this one object's clock. Expired values
 * are read as absent and deleted by an alarm, so an object whose key has expired keeps nothing.
 *
 * Workers KV is not used: it is eventually consistent (a write is seen elsewhere up to a minute
 * later) and has no atomic compare, so it can neither hold a lock nor count.
 */
export class EmbedStore extends DurableObject {
  async #read(): Promise<Stored | undefined> {
    const stored = await this.ctx.storage.get<Stored>('v');
    return stored !== undefined && stored.expiresAt > Date.now() ? stored : undefined;
  }

  /** Writes the value; an object with nothing to forget yet gets an alarm at its expiry (the alarm re-arms itself for a later one). */
  async #write(value: string | number, expiresAt: number, forget = true): Promise<void> {
    await this.ctx.storage.put<Stored>('v', { value, expiresAt });
    if (forget && (await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(expiresAt);
  }

  /** The alarm: forgets the value once it has expired (else waits for its new expiry). */
  async alarm(): Promise<void> {
    const stored = await this.ctx.storage.get<Stored>('v');
    if (stored === undefined || stored.expiresAt <= Date.now()) await this.ctx.storage.deleteAll();
    else await this.ctx.storage.setAlarm(stored.expiresAt);
  }

  /** The encoded entry, or `null`. */
  async getEntry(): Promise<string | null> {
    const stored = await this.#read();
    return typeof stored?.value === 'string' ? stored.value : null;
  }

  /** Stores the encoded entry for `ttlMs` (with `onlyIfAbsent`, only where none is live); resolves whether it did. */
  async setEntry(encoded: string, ttlMs: number, onlyIfAbsent: boolean): Promise<boolean> {
    if (typeof encoded !== 'string') throw new TypeError('entry must be a string');
    positiveMs(ttlMs);
    if (onlyIfAbsent && (await this.#read()) !== undefined) return false;
    await this.#write(encoded, Date.now() + ttlMs);
    return true;
  }

  /**
   * Stores the encoded entry for `ttlMs` where no live entry is, or where the live one's token is
   * among `superseded` (`TokenStore.setIfAbsentOrSuperseded`); resolves whether it did. A value
   * that does not read as an entry is replaced, as the Redis store's script does.
   */
  async setEntryIfAbsentOrSuperseded(encoded: string, ttlMs: number, superseded: string[]): Promise<boolean> {
    if (typeof encoded !== 'string') throw new TypeError('entry must be a string');
    if (!Array.isArray(superseded) || !superseded.every((token) => typeof token === 'string')) throw new TypeError('superseded must be an array of tokens');
    positiveMs(ttlMs);
    const stored = await this.#read();
    const token = typeof stored?.value === 'string' ? decodeEntry(stored.value)?.token : undefined;
    if (token !== undefined && !superseded.includes(token)) return false;
    await this.#write(encoded, Date.now() + ttlMs);
    return true;
  }

  async deleteEntry(): Promise<void> {
    await this.ctx.storage.deleteAll();
  }

  /** Takes the lock for `owner` unless another owner holds it; resolves whether it did. */
  async tryLock(owner: string, ttlMs: number): Promise<boolean> {
    positiveMs(ttlMs);
    if ((await this.#read()) !== undefined) return false;
    await this.#write(owner, Date.now() + ttlMs);
    return true;
  }

  /** Releases the lock only while `owner` still holds it. */
  async releaseLock(owner: string): Promise<void> {
    const stored = await this.#read();
    if (stored?.value === owner) await this.ctx.storage.deleteAll();
  }

  /** Gives the lock `ttlMs` more from now while `owner` still holds it; resolves whether it did. */
  async extendLock(owner: string, ttlMs: number): Promise<boolean> {
    positiveMs(ttlMs);
    const stored = await this.#read();
    if (stored?.value !== owner) return false;
    await this.#write(owner, Date.now() + ttlMs);
    return true;
  }

  /** One hit in a fixed window of `windowMs` that starts with its first hit. */
  async hit(windowMs: number): Promise<{ count: number; resetInMs: number }> {
    positiveMs(windowMs);
    const now = Date.now();
    const stored = await this.#read();
    const count = typeof stored?.value === 'number' ? stored.value + 1 : 1;
    const endsAt = stored === undefined ? now + windowMs : stored.expiresAt;
    await this.#write(count, endsAt);
    return { count, resetInMs: endsAt - now };
  }

  /** One step of the vendor budget (vendor-budget/reservation.ts) on this object's clock. */
  async reserveBudget(request: BudgetRequest): Promise<BudgetDecision> {
    positiveMs(request.intervalMs);
    positiveMs(request.burstMs);
    if (typeof request.maxLatenessMs !== 'number' || Number.isNaN(request.maxLatenessMs)) throw new TypeError('maxLatenessMs must be a number');
    const now = Date.now();
    const stored = await this.#read();
    const { tat, decision } = reserve(typeof stored?.value === 'number' ? stored.value : 0, now, request);
    // One object per vendor account, one number: kept, never forgotten by an alarm.
    if (tat !== stored?.value) await this.#write(tat, tat + BUDGET_KEPT_MS, false);
    return decision;
  }

  /** Answers: the object (and its namespace) is reachable. */
  async ping(): Promise<void> {}
}
