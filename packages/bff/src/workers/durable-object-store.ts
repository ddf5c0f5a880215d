import type { BudgetDecision, BudgetRequest } from '../vendor-budget/reservation.js';
import { decodeEntry, encodeEntry } from '../store/entry-codec.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../store/types.js';
import type { EmbedStore } from './embed-store.js';

/** The RPC surface of {@link EmbedStore} as a Worker sees it through a stub. */
export type EmbedStoreStub = Pick<
  EmbedStore,
  'getEntry' | 'setEntry' | 'setEntryIfAbsentOrSuperseded' | 'deleteEntry' | 'tryLock' | 'releaseLock' | 'extendLock' | 'hit' | 'reserveBudget' | 'ping'
>;

/** A Durable Object namespace binding of the {@link EmbedStore} class (`env.EMBED_STORE`). */
export interface EmbedStoreNamespace {
  idFromName(name: string): unknown;
  get(id: never): unknown;
}

export interface DurableObjectStoreOptions {
  /** Prepended to every object's name, so several deployments can share one namespace. @default 'embed:' */
  keyPrefix?: string;
}

/** A store call that failed in the Durable Object or on its way there; the BFF then degrades (§4, "Store outage"). */
export class DurableObjectStoreError extends Error {
  override name = 'DurableObjectStoreError';
  readonly code = 'unavailable';
}

const checkMs = (name: string, value: number): number => {
  if (typeof value !== 'number' || !(value > 0) || value === Number.POSITIVE_INFINITY) throw new TypeError(`${name} must be a positive number of milliseconds`);
  return value;
};
const MAX_PREFIX_LENGTH = 256;

export type DurableObjectStore = TokenStore & Required<Pick<TokenStore, 'setIfAbsent' | 'setIfAbsentOrSuperseded' | 'reserveBudget'>>;

/**
 * The BFF's `TokenStore` in Durable Objects of the {@link EmbedStore} class: one object per key
 * (`<prefix>group:<key>`, `lock:`, `hit:`, `budget:`), reached by RPC. So a group's entry, its
 * single-flight and rotation locks, each session's counters and each vendor account's budget
 * are objects of their own: the design scales with customers, and the budget of one account is
 * one object, one clock. Locks have a random owner; only that owner's release frees them.
 *
 * @example
 * ```ts
 * const store = createDurableObjectStore(env.EMBED_STORE);
 * const app = createBffApp({ ...options, store });
 * ```
 */
export function createDurableObjectStore(namespace: EmbedStoreNamespace, options: DurableObjectStoreOptions = {}): DurableObjectStore {
  if (typeof namespace?.idFromName !== 'function' || typeof namespace.get !== 'function') {
    throw new TypeError('createDurableObjectStore needs a Durable Object namespace binding of the EmbedStore class');
  }
  const prefix = options.keyPrefix ?? 'embed:';
  if (typeof prefix !== 'string' || prefix.length > MAX_PREFIX_LENGTH)
    throw new TypeError(`keyPrefix must be a string of at most ${MAX_PREFIX_LENGTH} characters`);
  const object = (kind: string, key: string): EmbedStoreStub => {
    if (typeof key !== 'string') throw new TypeError(`${kind} key must be a string`);
    // A fresh stub per call: stubs are cheap, and none is carried from one request into another.
    return namespace.get(namespace.idFromName(`${prefix}${kind}:${key}`) as never) as EmbedStoreStub;
  };
  const call = async <T>(operation: string, stub: EmbedStoreStub, run: (stub: EmbedStoreStub) => Promise<T>): Promise<T> => {
    try {
      return await run(stub);
    } catch (cause) {
      throw new DurableObjectStoreError(`Durable Object store ${operation} failed`, { cause });
    } finally {
      // An RPC stub holds its connection until disposed (or collected); a request may hold only six.
      (stub as Partial<Disposable>)[Symbol.dispose]?.();
    }
  };

  return {
    async get(groupKey: string): Promise<GroupEntry | undefined> {
      const stub = object('group', groupKey);
      // Anything the codec cannot vouch for is a miss: the BFF asks the vendor instead.
      return decodeEntry(await call('get', stub, (s) => s.getEntry()));
    },

    async set(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<void> {
      const stub = object('group', groupKey);
      const encoded = encodeEntry(entry);
      checkMs('ttlMs', ttlMs);
      await call('set', stub, (s) => s.setEntry(encoded, ttlMs, false));
    },

    async setIfAbsent(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean> {
      const stub = object('group', groupKey);
      const encoded = encodeEntry(entry);
      checkMs('ttlMs', ttlMs);
      return call('setIfAbsent', stub, (s) => s.setEntry(encoded, ttlMs, true));
    },

    async setIfAbsentOrSuperseded(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean> {
      const stub = object('group', groupKey);
      const encoded = encodeEntry(entry);
      checkMs('ttlMs', ttlMs);
      return call('setIfAbsentOrSuperseded', stub, (s) => s.setEntryIfAbsentOrSuperseded(encoded, ttlMs, [...superseded]));
    },

    async delete(groupKey: string): Promise<void> {
      const stub = object('group', groupKey);
      await call('delete', stub, (s) => s.deleteEntry());
    },

    async tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
      const stub = object('lock', name);
      checkMs('ttlMs', ttlMs);
      const owner = crypto.randomUUID();
      if (!(await call('tryLock', stub, (s) => s.tryLock(owner, ttlMs)))) return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await call('release', object('lock', name), (s) => s.releaseLock(owner));
        },
        async extend(extraMs: number) {
          checkMs('ttlMs', extraMs);
          if (released) return false;
          return call('extendLock', object('lock', name), (s) => s.extendLock(owner, extraMs));
        },
      };
    },

    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const stub = object('hit', key);
      checkMs('windowMs', windowMs);
      return call('hit', stub, (s) => s.hit(windowMs));
    },

    async reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision> {
      const stub = object('budget', key);
      return call('reserveBudget', stub, (s) => s.reserveBudget(request));
    },

    async ping(): Promise<void> {
      await call('ping', object('ping', ''), (s) => s.ping());
    },

    async close(): Promise<void> {},
  };
}
