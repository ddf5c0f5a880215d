import type { Span } from '@opentelemetry/api';
import type { BffLogger } from '../observability/logger.js';
import { inSpan } from '../observability/tracing.js';
import type { TokenStore } from '../store/types.js';
import { withSocketDeadline } from '../util/deadline.js';
import type { LocalCopy } from './local-copy.js';
import { StoreTimeoutError, type StoreHealth } from './store-health.js';

/*
 * How `GuardedStore` reaches the store: every call within its deadline, skipped while the store
 * is skipped (`StoreHealth`), a late answer lifting the skip it started, and what this process set
 * while the store failed written back once it answers again (`LocalCopy`). `GuardedStore` decides
 * what each operation falls back to; this module only runs the calls.
 */

/** The store's calls for one `GuardedStore`. */
export class StoreCalls {
  readonly store: TokenStore;
  readonly copy: LocalCopy;
  readonly health: StoreHealth;
  readonly #logger: BffLogger;
  /** `undefined` for a synchronous store (this process's memory), which runs without a deadline. */
  readonly #timeoutMs: number | undefined;
  #writingBack = false;

  constructor(store: TokenStore, copy: LocalCopy, health: StoreHealth, logger: BffLogger, timeoutMs: number | undefined) {
    this.store = store;
    this.copy = copy;
    this.health = health;
    this.#logger = logger;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * The store call for `key` within the deadline, else `fallback()`; skipped (straight to the
   * fallback) while the store is skipped after a missed deadline, unless `ask` (the lock
   * protocol: skipped only while the store is lost for `key` too, so a request over a hung store
   * waits out one deadline, not one per call). A call
   * that missed its deadline but answers after all shows a slow store, not a hung one (a
   * CPU-starved machine: an answer 10 ms late): its answer lifts the skip it started, so one busy
   * moment does not send every call of this process to the fallback for 2 s, and `onLate` gets
   * what it answered (a lock taken too late to be used is released, instead of holding other
   * processes off for its lifetime).
   */
  run<T>(op: string, key: string, call: () => Promise<T>, fallback: () => T | Promise<T>, onLate?: (value: T) => void, ask = false): Promise<T> {
    // A span per store call: its operation and outcome only (the key names the customer).
    return inSpan(`embed.store ${op}`, { 'db.operation.name': op }, (span) => this.#run(op, key, call, fallback, span, onLate, ask)) as Promise<T>;
  }

  #run<T>(
    op: string,
    key: string,
    call: () => Promise<T>,
    fallback: () => T | Promise<T>,
    span: Span | undefined,
    onLate?: (value: T) => void,
    ask = false,
  ): Promise<T> {
    const health = this.health;
    if (health.skipping && (!ask || health.lost(key))) {
      span?.setAttribute('embed.store.outcome', 'skipped');
      return Promise.resolve(fallback());
    }
    const startedAt = health.now;
    let pending: Promise<T> | undefined;
    return this.within(op, () => (pending = call())).then(
      (value) => {
        // Else every customer synced during the outage would cost its sync again right after it.
        if (health.answered(op, key)) void this.writeBack();
        span?.setAttribute('embed.store.outcome', 'ok');
        return value;
      },
      (error: unknown) => {
        const answeredLate = health.failed(op, key, error, startedAt);
        // The request goes on with the fallback, so the span is not an error; it says why.
        span?.setAttributes({
          'embed.store.outcome': error instanceof StoreTimeoutError ? 'timeout' : 'failed',
          'error.type': error instanceof StoreTimeoutError ? 'timeout' : 'store_error',
        });
        if (error instanceof StoreTimeoutError && pending !== undefined) {
          pending.then(
            (value) => {
              answeredLate();
              onLate?.(value);
            },
            () => undefined,
          );
        }
        return fallback();
      },
    );
  }

  /** The store call within the deadline (none for a synchronous store: in-process memory cannot hang). */
  within<T>(op: string, call: () => Promise<T>): Promise<T> {
    return this.#timeoutMs === undefined ? call() : within(this.#timeoutMs, op, call);
  }

  /**
   * Hands the store what this process set while it failed (`setIfAbsentOrSuperseded`, else
   * `setIfAbsent`): where the store holds nothing for the key, or an entry whose token the unsaved
   * one rotated away; an entry another process wrote meanwhile (a newer sync, its own rotation) is
   * never replaced. Stops at the first failure: the rest waits for the next recovery.
   */
  async writeBack(): Promise<void> {
    const store = this.store;
    if (this.#writingBack || this.health.failing) return;
    this.#writingBack = true;
    let written = 0;
    try {
      written = await this.copy.writeBack((key, entry, ttlMs, superseded) => {
        if (store.setIfAbsentOrSuperseded !== undefined)
          return this.within('setIfAbsentOrSuperseded', () => store.setIfAbsentOrSuperseded!(key, entry, ttlMs, superseded));
        if (store.setIfAbsent !== undefined) return this.within('setIfAbsent', () => store.setIfAbsent!(key, entry, ttlMs));
        // A store that can write neither keeps what it has; the copy stops shadowing it.
        return Promise.resolve(false);
      });
    } catch {
      // The store failed again: what is left stays unsaved, as if the outage had gone on.
    } finally {
      this.#writingBack = false;
    }
    if (written > 0) this.#logger.info('store recovered: wrote back entries synced while it failed', { entries: written });
  }
}

/** The store call, or its failure once it has not answered within `ms` (judged after reading what the store sent meanwhile). */
export const within = <T>(ms: number, op: string, call: () => Promise<T>): Promise<T> =>
  withSocketDeadline(call, ms, () => new StoreTimeoutError(`store ${op} did not answer within ${ms} ms`));
