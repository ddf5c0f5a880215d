import type { BffLogger } from '../observability/logger.js';
import { describeError } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import { MemoryTokenStore } from '../store/memory.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';

const NO_LOCK: LockHandle = { release: () => Promise.resolve() };

/**
 * The store as the token service sees it: a failing store (Redis down) never fails a request.
 * Reads miss, writes are dropped, locks are granted (in-process single-flight still holds) and
 * rate limits fall back to this process's memory; each failure is counted and the first of a
 * run is logged, so the BFF degrades to calling the vendor directly.
 */
export class GuardedStore {
  readonly #store: TokenStore;
  readonly #local = new MemoryTokenStore({ maxEntries: 1, maxCounters: 10_000 });
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #timeoutMs: number | undefined;
  readonly #now: () => number;
  /**
   * The store itself when it is this process's memory, which answers synchronously and cannot
   * fail: the hot path reads it directly. `undefined` for a remote (shared) store.
   */
  readonly memory: MemoryTokenStore | undefined;
  #failing = false;
  #lastFailureAt: number | undefined;

  constructor(store: TokenStore, logger: BffLogger, metrics: BffMetrics, timeoutMs: number, now: () => number) {
    this.#store = store;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#now = now;
    // In-process memory cannot hang; only a remote store needs a deadline (and its timer).
    this.memory = store instanceof MemoryTokenStore ? store : undefined;
    this.#timeoutMs = this.memory === undefined ? timeoutMs : undefined;
  }

  /** Whether a store call failed within the last `windowMs`. */
  failedWithin(windowMs: number): boolean {
    return this.#lastFailureAt !== undefined && this.#now() - this.#lastFailureAt < windowMs;
  }

  #run<T>(op: string, call: () => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    const pending = this.#timeoutMs === undefined ? call() : withTimeout(call(), this.#timeoutMs, op);
    return pending.then(
      (value) => {
        if (this.#failing) {
          this.#failing = false;
          this.#metrics.storeDegraded.set(0);
          this.#logger.info('store recovered', { op });
        }
        return value;
      },
      (error: unknown) => {
        this.#metrics.storeFailures.labels(op).inc();
        this.#lastFailureAt = this.#now();
        if (!this.#failing) {
          this.#failing = true;
          this.#metrics.storeDegraded.set(1);
          this.#logger.warn('store failing: answering from the vendor directly', { op, error: describeError(error) });
        }
        return fallback();
      },
    );
  }

  get(key: string): Promise<GroupEntry | undefined> {
    return this.#run('get', () => this.#store.get(key), () => undefined);
  }

  set(key: string, entry: GroupEntry, ttlMs: number): Promise<void> {
    return this.#run('set', () => this.#store.set(key, entry, ttlMs), () => undefined);
  }

  tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
    return this.#run(
      'tryLock',
      async () => {
        const lock = await this.#store.tryLock(name, ttlMs);
        if (lock === undefined) return undefined;
        return { release: () => lock.release().catch(() => undefined) };
      },
      () => NO_LOCK,
    );
  }

  hit(key: string, windowMs: number): Promise<WindowCount> {
    return this.#run('hit', () => this.#store.hit(key, windowMs), () => this.#local.hit(key, windowMs));
  }

  /** For `/readyz`: resolves when the store answers within the deadline. */
  ping(timeoutMs: number): Promise<void> {
    return withTimeout(this.#store.ping(), timeoutMs, 'ping');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, op: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`store ${op} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
