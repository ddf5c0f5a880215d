import { describe, expect, it, vi } from 'vitest';
import { createBffMetrics } from '../observability/prometheus.js';
import { createBffApp } from '../app.js';
import { groupEntry } from '../testing/group-entry.js';
import { call, captureLogs, FakeUpstream, session, SESSION_SECRET, tokenRequest } from '../testing/fixtures.js';
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

describe('GuardedStore on a store that hangs', () => {
  it('after one call hangs to its deadline, skips the store for a while instead of waiting out every call, then asks it again', async () => {
    const inner = createMemoryStore();
    let clock = 1_000_000;
    let asked = 0;
    const hangs = { now: true };
    const hang = <T>(call: () => Promise<T>): Promise<T> => {
      asked += 1;
      return hangs.now ? new Promise<T>(() => undefined) : call();
    };
    const hanging: TokenStore = {
      get: (key) => hang(() => inner.get(key)),
      set: (key, entry, ttl) => hang(() => inner.set(key, entry, ttl)),
      delete: (key) => inner.delete(key),
      hit: (key, windowMs) => hang(() => inner.hit(key, windowMs)),
      ping: () => inner.ping(),
      close: () => inner.close(),
      tryLock: (name, ttl) => hang(() => inner.tryLock(name, ttl)),
    };
    const store = new GuardedStore(hanging, captureLogs().logger, createBffMetrics(), 30, () => clock);
    await expect(store.get('acme')).resolves.toBeUndefined();
    expect(asked).toBe(1);
    // The calls a request makes next answer from the fallback at once, without asking the store.
    await store.set('acme', groupEntry('tok-local'), 60_000);
    await expect(store.get('acme')).resolves.toEqual(groupEntry('tok-local'));
    await expect(store.tryLock('sync:acme', 1_000)).resolves.toBeDefined();
    expect(asked).toBe(1);
    // Once the window has passed the store is asked again, and used when it answers.
    hangs.now = false;
    clock += 2_001;
    await store.set('acme', groupEntry('tok-shared'), 60_000);
    expect(asked).toBe(2);
    await expect(store.get('acme')).resolves.toEqual(groupEntry('tok-shared'));
  });
});

describe('GuardedStore while the store is down', () => {
  const failing = (state: { down: boolean }): TokenStore => {
    const inner = createMemoryStore();
    const guard = <T>(call: () => Promise<T>) => (state.down ? Promise.reject(new Error('store unreachable')) : call());
    return {
      get: (key) => guard(() => inner.get(key)),
      set: (key, entry, ttl) => guard(() => inner.set(key, entry, ttl)),
      delete: (key) => guard(() => inner.delete(key)),
      hit: (key, windowMs) => guard(() => inner.hit(key, windowMs)),
      ping: () => guard(() => inner.ping()),
      close: () => inner.close(),
      tryLock: (name, ttl) => guard(() => inner.tryLock(name, ttl)),
    };
  };

  it('keeps entries in a bounded cache of its own, and forgets them once the store answers again', async () => {
    const state = { down: true };
    const store = new GuardedStore(failing(state), captureLogs().logger, createBffMetrics(), 1_000, Date.now);
    await store.set('acme', groupEntry('tok-local'), 60_000);
    expect(await store.get('acme')).toEqual(groupEntry('tok-local'));
    state.down = false;
    expect(await store.get('acme')).toBeUndefined();
    state.down = true;
    // The old local entry is gone: another process may have rotated the token meanwhile.
    expect(await store.get('acme')).toBeUndefined();
  });

  it('costs one vendor call per group per process for a burst of requests while the store is down', async () => {
    const upstream = new FakeUpstream();
    const app = createBffApp({
      upstream,
      session: { secret: SESSION_SECRET },
      logger: captureLogs().logger,
      rateLimit: false,
      expectEnvironment: 'Customer',
      store: failing({ down: true }),
    });
    const jwt = await session();
    const answers = [];
    for (let i = 0; i < 10; i++) answers.push(await call(app, '/embed/token', tokenRequest(jwt)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(new Set(answers.map((a) => (a.body as { token: string }).token)).size).toBe(1);
    // The customer's one get-or-create, plus the account's environment learned once through the
    // probe group (its get-or-create and update), not once per request.
    expect(upstream.calls).toEqual({ getOrCreate: 2, update: 1, rotate: 0 });
  });
});

describe('GuardedStore after an outage', () => {
  /** A store that refuses every call while `down`, over a memory store that knows `setIfAbsent`. */
  function flakyStore() {
    const inner = createMemoryStore();
    const state = { down: false };
    const guard = <T>(call: () => Promise<T>): Promise<T> => (state.down ? Promise.reject(new Error('connect ECONNREFUSED')) : call());
    const flaky: TokenStore = {
      get: (key) => guard(() => inner.get(key)),
      set: (key, entry, ttl) => guard(() => inner.set(key, entry, ttl)),
      setIfAbsent: (key, entry, ttl) => guard(async () => (inner.peek(key) === undefined ? (await inner.set(key, entry, ttl), true) : false)),
      delete: (key) => guard(() => inner.delete(key)),
      hit: (key, windowMs) => guard(() => inner.hit(key, windowMs)),
      ping: () => guard(() => inner.ping()),
      close: () => inner.close(),
      tryLock: (name, ttl) => guard(() => inner.tryLock(name, ttl)),
    };
    return { inner, state, store: new GuardedStore(flaky, captureLogs().logger, createBffMetrics(), 1_000, Date.now) };
  }

  it('writes what it synced while the store failed to the store once it answers, where the store holds nothing', async () => {
    const { inner, state, store } = flakyStore();
    state.down = true;
    await store.set('acme', groupEntry('synced-in-outage'), 60_000);
    expect(inner.peek('acme')).toBeUndefined();
    state.down = false;
    // The first call that succeeds is the recovery; the write-back follows it.
    await store.get('other');
    await vi.waitFor(() => expect(inner.peek('acme')?.token).toBe('synced-in-outage'));
  });

  it('never replaces what another process wrote meanwhile', async () => {
    const { inner, state, store } = flakyStore();
    state.down = true;
    await store.set('acme', groupEntry('ours-from-the-outage'), 60_000);
    await store.set('globex', groupEntry('globex-from-the-outage'), 60_000);
    await inner.set('acme', groupEntry('rotated-by-another-process'), 60_000);
    state.down = false;
    await store.get('other');
    await vi.waitFor(() => expect(inner.peek('globex')?.token).toBe('globex-from-the-outage'));
    expect(inner.peek('acme')?.token).toBe('rotated-by-another-process');
  });
});
