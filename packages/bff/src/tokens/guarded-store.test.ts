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
  /**
   * A store that answers late: while `late.holding`, the get, set, hit and tryLock calls on
   * `inner` wait (past any deadline, whatever the machine's load) until `answerLate` lets them
   * through; counted in `late.asked`.
   */
  interface Late {
    holding: boolean;
    asked: number;
    held: (() => void)[];
  }
  const slowStore = (inner: TokenStore, late: Late): TokenStore => {
    const slow = <T>(call: () => Promise<T>): Promise<T> => {
      late.asked += 1;
      if (!late.holding) return call();
      return new Promise<T>((resolve, reject) => late.held.push(() => void call().then(resolve, reject)));
    };
    return {
      get: (key) => slow(() => inner.get(key)),
      set: (key, entry, ttl) => slow(() => inner.set(key, entry, ttl)),
      delete: (key) => inner.delete(key),
      hit: (key, windowMs) => slow(() => inner.hit(key, windowMs)),
      tryLock: (name, ttl) => slow(() => inner.tryLock(name, ttl)),
      ping: () => inner.ping(),
      close: () => inner.close(),
    };
  };
  /** The held calls answer now (late), and what their answers start has run. */
  const answerLate = async (late: Late) => {
    late.holding = false;
    for (const answer of late.held.splice(0)) answer();
    await new Promise((resolve) => setTimeout(resolve, 20));
  };

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

  it('asks the store again as soon as a call that missed its deadline answers after all (slow, not hung), and releases a lock that came too late', async () => {
    const inner = createMemoryStore();
    const clock = 1_000_000;
    const late: Late = { holding: false, asked: 0, held: [] };
    const store = new GuardedStore(slowStore(inner, late), captureLogs().logger, createBffMetrics(), 30, () => clock);
    // One answer late on a busy machine: the request goes on from the fallback, and the store is skipped meanwhile...
    late.holding = true;
    await expect(store.hit('session:a', 60_000)).resolves.toMatchObject({ count: 1 });
    late.holding = false;
    await expect(store.get('acme')).resolves.toBeUndefined();
    expect(late.asked).toBe(1);
    // ...until that answer arrives (the clock has not moved: without it, 2 s of skipping).
    await answerLate(late);
    await inner.set('acme', groupEntry('tok-shared'), 60_000);
    await expect(store.get('acme')).resolves.toEqual(groupEntry('tok-shared'));
    expect(late.asked).toBe(2);
    // A lock taken after its deadline was not used (the store is slow, not lost: the caller waits as for another holder): released, not left to block others.
    late.holding = true;
    expect(await store.tryLock('sync:acme', 60_000)).toBeUndefined();
    await answerLate(late);
    const other = await inner.tryLock('sync:acme', 60_000);
    expect(other).toBeDefined();
  });

  it('grants no lock of its own while the store is slow, not lost: two processes whose lock calls both miss the deadline never both hold a group (a CPU-starved machine)', async () => {
    const inner = createMemoryStore();
    let clock = 1_000_000;
    const late: Late = { holding: false, asked: 0, held: [] };
    const processOf = () => new GuardedStore(slowStore(inner, late), captureLogs().logger, createBffMetrics(), 30, () => clock);
    const [a, b] = [processOf(), processOf()];
    // Both processes have been talking to the store; then every answer comes after the deadline.
    await Promise.all([a.get('acme'), b.get('acme')]);
    late.holding = true;
    const locks = await Promise.all([a.tryLock('sync:acme', 60_000), b.tryLock('sync:acme', 60_000), a.tryLock('sync:globex', 60_000)]);
    // Before: each got a lock of its own (the store deemed failing) and called the vendor: a duplicate.
    expect(locks).toEqual([undefined, undefined, undefined]);
    // Skipped after the missed deadline, and still slow: waits, no local lock either.
    expect(await b.tryLock('sync:acme', 60_000)).toBeUndefined();
    // The late answers arrive (the locks they took are released); the store is asked again: one holder.
    await answerLate(late);
    const again = await Promise.all([a.tryLock('sync:acme', 60_000), b.tryLock('sync:acme', 60_000)]);
    expect(again.filter(Boolean)).toHaveLength(1);
    // A store that stops answering altogether counts as lost after 3 s of silence: the lock is granted locally (availability).
    late.holding = true;
    expect(await a.tryLock('sync:initech', 60_000)).toBeUndefined();
    clock += 3_001;
    expect(await a.tryLock('sync:initech', 60_000)).toBeDefined();
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

  it('keeps entries in a bounded copy of its own, and asks the store first again once it answers', async () => {
    const state = { down: true };
    const store = new GuardedStore(failing(state), captureLogs().logger, createBffMetrics(), 1_000, Date.now);
    await store.set('acme', groupEntry('tok-local'), 60_000);
    expect(await store.get('acme')).toEqual(groupEntry('tok-local'));
    state.down = false;
    // Served from the copy until its write-back is done; this store has no setIfAbsent to take it, so
    // after that the copy's entry comes back due for revalidation (the store does not have it).
    expect(await store.get('acme')).toEqual(groupEntry('tok-local'));
    await vi.waitFor(async () => expect(await store.get('acme')).toEqual(groupEntry('tok-local', { syncedAt: 0 })));
    await store.set('acme', groupEntry('tok-shared'), 60_000);
    expect(await store.get('acme')).toEqual(groupEntry('tok-shared'));
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
  /** A store that refuses every call while `down`, over a memory store; `restartEmpty()` loses everything, as a Redis without persistence does. */
  function flakyStore(now: () => number = Date.now) {
    const state = { down: false, inner: createMemoryStore({ now }) };
    const guard = <T>(call: () => Promise<T>): Promise<T> => (state.down ? Promise.reject(new Error('connect ECONNREFUSED')) : call());
    const flaky: TokenStore = {
      get: (key) => guard(() => state.inner.get(key)),
      set: (key, entry, ttl) => guard(() => state.inner.set(key, entry, ttl)),
      setIfAbsent: (key, entry, ttl) => guard(() => state.inner.setIfAbsent(key, entry, ttl)),
      setIfAbsentOrSuperseded: (key, entry, ttl, superseded) => guard(() => state.inner.setIfAbsentOrSuperseded(key, entry, ttl, superseded)),
      delete: (key) => guard(() => state.inner.delete(key)),
      hit: (key, windowMs) => guard(() => state.inner.hit(key, windowMs)),
      ping: () => guard(() => state.inner.ping()),
      close: () => state.inner.close(),
      tryLock: (name, ttl) => guard(() => state.inner.tryLock(name, ttl)),
      reserveBudget: (key, request) => guard(() => state.inner.reserveBudget(key, request)),
    };
    const restartEmpty = () => {
      state.inner = createMemoryStore({ now });
    };
    return { state, restartEmpty, get inner() {
      return state.inner;
    }, store: new GuardedStore(flaky, captureLogs().logger, createBffMetrics(), 1_000, now) };
  }

  it('writes what it synced while the store failed to the store once it answers, where the store holds nothing', async () => {
    const flaky = flakyStore();
    flaky.state.down = true;
    await flaky.store.set('acme', groupEntry('synced-in-outage'), 60_000);
    expect(flaky.inner.peek('acme')).toBeUndefined();
    flaky.state.down = false;
    // The first call that succeeds is the recovery; the write-back follows it.
    await flaky.store.get('other');
    await vi.waitFor(() => expect(flaky.inner.peek('acme')?.token).toBe('synced-in-outage'));
  });

  it('never replaces what another process wrote meanwhile', async () => {
    const flaky = flakyStore();
    flaky.state.down = true;
    await flaky.store.set('acme', groupEntry('ours-from-the-outage', { previousToken: 'pre-outage' }), 60_000);
    await flaky.store.set('globex', groupEntry('globex-from-the-outage'), 60_000);
    await flaky.inner.set('acme', groupEntry('rotated-by-another-process'), 60_000);
    flaky.state.down = false;
    await flaky.store.get('other');
    await vi.waitFor(() => expect(flaky.inner.peek('globex')?.token).toBe('globex-from-the-outage'));
    expect(flaky.inner.peek('acme')?.token).toBe('rotated-by-another-process');
    // And this process reads the other process's entry from then on.
    expect((await flaky.store.get('acme'))?.token).toBe('rotated-by-another-process');
  });

  it('lets a rotation made while the store failed win over the older entry the store kept (Redis resumed, or restarted from its AOF)', async () => {
    const flaky = flakyStore();
    await flaky.store.set('acme', groupEntry('pre-outage'), 60_000);
    flaky.state.down = true;
    // Rotated twice while the store was away: both old tokens are dead at the vendor.
    await flaky.store.set('acme', groupEntry('rotated-once', { previousToken: 'pre-outage' }), 60_000);
    await flaky.store.set('acme', groupEntry('rotated-twice', { previousToken: 'rotated-once' }), 60_000);
    flaky.state.down = false;
    // Until the write-back is done, this process serves its rotation, not the store's dead token.
    expect((await flaky.store.get('acme'))?.token).toBe('rotated-twice');
    await vi.waitFor(() => expect(flaky.inner.peek('acme')?.token).toBe('rotated-twice'));
    expect((await flaky.store.get('acme'))?.token).toBe('rotated-twice');
  });

  it('puts back a rotation the store lost (a failover before the write reached the replica: the store holds the token rotated away)', async () => {
    const flaky = flakyStore();
    await flaky.store.set('acme', groupEntry('rotated', { previousToken: 'before' }), 60_000);
    // The promoted replica never got the rotation.
    await flaky.inner.set('acme', groupEntry('before'), 60_000);
    expect((await flaky.store.get('acme'))?.token).toBe('rotated');
    await vi.waitFor(() => expect(flaky.inner.peek('acme')?.token).toBe('rotated'));
  });

  it('lets a rotation made while the store failed win over an even older entry the store came back with (a failover lost the rotation before it)', async () => {
    const flaky = flakyStore();
    await flaky.inner.set('acme', groupEntry('one', { previousToken: 'zero' }), 60_000);
    expect((await flaky.store.get('acme'))?.token).toBe('one');
    flaky.state.down = true;
    await flaky.store.set('acme', groupEntry('two', { previousToken: 'one' }), 60_000);
    // The replica promoted meanwhile never got 'one': the store is back with 'zero', dead for two rotations.
    await flaky.inner.set('acme', groupEntry('zero'), 60_000);
    flaky.state.down = false;
    expect((await flaky.store.get('acme'))?.token).toBe('two');
    await vi.waitFor(() => expect(flaky.inner.peek('acme')?.token).toBe('two'));
  });

  it('knows which groups it could not read while the rest of the store answers (a cluster master failing over), and that others may still be writing back', async () => {
    let clock = 1_000_000;
    const flaky = flakyStore(() => clock);
    flaky.state.down = true;
    await flaky.store.get('acme');
    flaky.state.down = false;
    await flaky.store.get('globex');
    expect(flaky.store.degraded).toBe(false);
    // Moments after a failure every group may miss what another process synced meanwhile.
    expect(flaky.store.degradedFor('globex')).toBe(true);
    clock += 10_001;
    expect(flaky.store.degradedFor('acme')).toBe(true);
    expect(flaky.store.degradedFor('globex')).toBe(false);
    await flaky.store.get('acme');
    expect(flaky.store.degradedFor('acme')).toBe(false);
  });

  it('serves what it read from the store while the store fails again, and after a recovery too (a flapping store)', async () => {
    const flaky = flakyStore();
    await flaky.inner.set('acme', groupEntry('cached'), 60_000);
    expect((await flaky.store.get('acme'))?.token).toBe('cached');
    for (let flap = 0; flap < 3; flap++) {
      flaky.state.down = true;
      expect(await flaky.store.get('acme')).toEqual(groupEntry('cached'));
      flaky.state.down = false;
      expect(await flaky.store.get('acme')).toEqual(groupEntry('cached'));
    }
  });

  it('hands back an entry the store lost (restarted empty) as due for revalidation, never as fresh', async () => {
    const flaky = flakyStore();
    await flaky.inner.set('acme', groupEntry('cached'), 60_000);
    await flaky.store.get('acme');
    flaky.restartEmpty();
    expect(await flaky.store.get('acme')).toEqual(groupEntry('cached', { syncedAt: 0 }));
    expect(await flaky.store.get('never-seen')).toBeUndefined();
  });

  describe('the vendor budget', () => {
    // 60 a minute, a bucket of 5; callers may not wait.
    const request = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };
    const admittedIn = async (store: GuardedStore, attempts: number) => {
      let admitted = 0;
      for (let i = 0; i < attempts; i++) if ((await store.reserveBudget('acct', request)).admitted) admitted++;
      return admitted;
    };

    it('is not lifted by a store that flaps: the calls counted while it failed are charged when it answers', async () => {
      let clock = 1_000_000;
      const flaky = flakyStore(() => clock);
      // Ten seconds of a store down half of every second, asked 20 times in each half.
      let admitted = 0;
      for (let second = 0; second < 10; second++) {
        flaky.state.down = false;
        admitted += await admittedIn(flaky.store, 20);
        clock += 500;
        flaky.state.down = true;
        admitted += await admittedIn(flaky.store, 20);
        clock += 500;
      }
      // A steady store admits the bucket and one a second: 5 + 10. Each process's own count during an
      // outage continues from where the shared budget stood, so the flapping adds nothing.
      expect(admitted).toBeLessThanOrEqual(5 + 10);
      expect(admitted).toBeGreaterThanOrEqual(10);
    });

    it('is not lifted by a store that restarts empty: it resumes from where this process last saw it', async () => {
      let clock = 1_000_000;
      const flaky = flakyStore(() => clock);
      let admitted = 0;
      for (let second = 0; second < 10; second++) {
        admitted += await admittedIn(flaky.store, 20);
        flaky.restartEmpty();
        clock += 1_000;
      }
      expect(admitted).toBeLessThanOrEqual(5 + 10);
    });

    it('spends, while the store is away, only what the shared budget had left', async () => {
      const clock = 1_000_000;
      const flaky = flakyStore(() => clock);
      expect(await admittedIn(flaky.store, 5)).toBe(5);
      flaky.state.down = true;
      expect(await admittedIn(flaky.store, 5)).toBe(0);
    });
  });
});
