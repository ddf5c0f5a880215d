import { describe, expect, it } from 'vitest';
import { createBffMetrics } from '../observability/metrics.js';
import { captureLogs } from '../testing/fixtures.js';
import { createMemoryStore } from '../store/memory.js';
import type { TokenStore } from '../store/types.js';
import { GuardedStore } from './guarded-store.js';

describe('GuardedStore', () => {
  it('bounds a lock release by the store deadline: a store that hangs (a cluster node that died) cannot hold a request', async () => {
    const inner = createMemoryStore();
    const hanging: TokenStore = {
      get: (key) => inner.get(key),
      set: (key, entry, ttl) => inner.set(key, entry, ttl),
      delete: (key) => inner.delete(key),
      hit: (key, windowMs) => inner.hit(key, windowMs),
      ping: () => inner.ping(),
      close: () => inner.close(),
      tryLock: async () => ({ release: () => new Promise<void>(() => undefined) }),
    };
    const store = new GuardedStore(hanging, captureLogs().logger, createBffMetrics(), 50, Date.now);
    const lock = await store.tryLock('sync:acme', 10_000);
    await expect(lock!.release()).resolves.toBeUndefined();
  });
});
