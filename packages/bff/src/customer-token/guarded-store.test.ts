import { describe, expect, it, vi } from 'vitest';
import type { Hono } from 'hono';
import { createJsonLogger } from '../observability/logger.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { createBffApp } from '../app.js';
import { groupEntry } from '../../test/support/group-entry.js';
import { call, captureLogs, deferred, FakeUpstream, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { createMemoryStore } from '../store/memory.js';
import type { LockHandle, TokenStore } from '../store/types.js';
import { RedisStoreError } from '../store/redis/errors.js';
import { ReplyError } from 'ioredis';
import { GroupEntries } from './group-entries.js';
import { GuardedStore } from './guarded-store.js';
import { StoreSlowError } from './store-health.js';

/**
 * A store that answers late: while `late.holding` (for the keys `late.only` accepts, default all),
 * the get, set, hit and tryLock calls on `inner` wait (past any deadline, whatever the machine's
 * load) until `answerLate` lets them through; counted in `late.asked`. `late.beforeLock` runs
 * before a lock call is answered (a moment staged between the ask and the answer).
 */
interface Late {
  holding: boolean;
  asked: number;
  held: (() => void)[];
  only?: (key: string) => boolean;
  beforeLock?: (name: string) => Promise<void>;
}
const lateOf = (only?: (key: string) => boolean): Late => ({ holding: false, asked: 0, held: [], only });
const slowStore = (inner: TokenStore, late: Late): TokenStore => {
  const slow = <T>(key: string, call: () => Promise<T>): Promise<T> => {
    late.asked += 1;
    if (!late.holding || !(late.only?.(key) ?? true)) return call();
    return new Promise<T>((resolve, reject) => late.held.push(() => void call().then(resolve, reject)));
  };
  return {
    get: (key) => slow(key, () => inner.get(key)),
    set: (key, entry, ttl) => slow(key, () => inner.set(key, entry, ttl)),
    delete: (key) => inner.delete(key),
    hit: (key, windowMs) => slow(key, () => inner.hit(key, windowMs)),
    tryLock: (name, ttl) =>
      slow(name, async () => {
        await late.beforeLock?.(name);
        return inner.tryLock(name, ttl);
      }),
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
    const store = new GuardedStore(
      hanging,
      captureLogs().logger,
      createBffMetrics(),
      30,
      () => clock,
      () => clock,
    );
    await expect(store.get('acme')).resolves.toBeUndefined();
    expect(asked).toBe(1);
    // The calls a request makes next answer from the fallback at once, without asking the store...
    await store.set('acme', groupEntry('tok-local'), 60_000);
    await expect(store.get('acme')).resolves.toEqual(groupEntry('tok-local'));
    expect(asked).toBe(1);
    // ...but the lock is asked for: its oldest unanswered call is younger than 3 s (slow or hung, it cannot tell yet): no lock of its own.
    await expect(store.tryLock('sync:acme', 1_000)).resolves.toBeUndefined();
    expect(asked).toBe(2);
    clock += 1_500;
    await expect(store.tryLock('sync:acme', 1_000)).resolves.toBeUndefined();
    expect(asked).toBe(3);
    // Its oldest unanswered call is 3 s old: lost. While it is skipped, the lock protocol skips it too (one deadline per
    // request, not one per call; before: a deadline for each of the lock, the re-read and the write): all from this process.
    clock += 1_500;
    await expect(store.tryLock('sync:acme', 1_000)).resolves.toMatchObject({ shared: false });
    await expect(store.readUnderLock('acme')).resolves.toEqual(groupEntry('tok-local'));
    await expect(store.writeUnderLock('acme', groupEntry('tok-local-2'), 60_000)).resolves.toBe('lost');
    expect(asked).toBe(3);
    // Once the window has passed the store is asked again, and used when it answers.
    hangs.now = false;
    clock += 2_001;
    await store.set('acme', groupEntry('tok-shared'), 60_000);
    expect(asked).toBe(4);
    await expect(store.get('acme')).resolves.toEqual(groupEntry('tok-shared'));
  });

  it('asks the store again as soon as a call that missed its deadline answers after all (slow, not hung), and releases a lock that came too late', async () => {
    const inner = createMemoryStore();
    const clock = 1_000_000;
    const late = lateOf();
    const store = new GuardedStore(
      slowStore(inner, late),
      captureLogs().logger,
      createBffMetrics(),
      30,
      () => clock,
      () => clock,
    );
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
    const late = lateOf();
    const processOf = () =>
      new GuardedStore(
        slowStore(inner, late),
        captureLogs().logger,
        createBffMetrics(),
        30,
        () => clock,
        () => clock,
      );
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

describe('GuardedStore: the lock protocol never crosses the skip (a slow store is not a lost one)', () => {
  /**
   * A process over a store that answered at `clock`, then had a call miss its deadline 1.5 s
   * later: plain calls skip the store until 3.5 s, and 3.1 s after the last answer the skip is
   * still on (the window in which bench row 9b's duplicates came from: ARCHITECTURE §4.4).
   */
  async function skippingProcess() {
    const inner = createMemoryStore();
    let clock = 1_000_000;
    const late = lateOf();
    const metrics = createBffMetrics();
    const store = new GuardedStore(
      slowStore(inner, late),
      captureLogs().logger,
      metrics,
      30,
      () => clock,
      () => clock,
    );
    await store.get('acme');
    clock += 1_500;
    late.holding = true;
    await store.get('globex');
    late.holding = false;
    clock += 1_600;
    expect(store.degraded).toBe(true);
    const localLocks = async () => (await metrics.storeLocalLocks.get()).values[0]?.value ?? 0;
    return { inner, late, store, localLocks };
  }

  it('asks the store for a lock while skipping it, and gets "busy" while another process holds it, never a lock of its own', async () => {
    const { inner, late, store, localLocks } = await skippingProcess();
    const other = await inner.tryLock('sync:acme', 60_000);
    const asked = late.asked;
    // Before: granted in this process without asking (3.1 s since the last answer), and the vendor called twice.
    expect(await store.tryLock('sync:acme', 60_000)).toBeUndefined();
    expect(late.asked).toBe(asked + 1);
    await other!.release();
    expect(await store.tryLock('sync:acme', 60_000)).toMatchObject({ shared: true });
    expect(await localLocks()).toBe(0);
    await answerLate(late);
  });

  it('re-reads under a lock from the store itself while plain reads skip it; a re-read the slow store does not answer is StoreSlowError, not a miss', async () => {
    const { inner, late, store } = await skippingProcess();
    const lock = await store.tryLock('sync:acme', 60_000);
    expect(lock?.shared).toBe(true);
    // Another process wrote the entry and released the lock just before.
    await inner.set('acme', groupEntry('tok-other'), 60_000);
    expect(await store.get('acme')).toBeUndefined();
    expect(await store.readUnderLock('acme')).toEqual(groupEntry('tok-other'));
    late.holding = true;
    await expect(store.readUnderLock('globex')).rejects.toBeInstanceOf(StoreSlowError);
    await answerLate(late);
  });

  it('writes under a lock to the store itself while plain writes skip it, and says when a slow store did not take the write', async () => {
    const { inner, late, store } = await skippingProcess();
    // Before: the holder's write went to the local copy only, and the next holder read a miss.
    expect(await store.writeUnderLock('acme', groupEntry('tok-ours'), 60_000)).toBe('stored');
    expect(inner.peek('acme')?.token).toBe('tok-ours');
    late.holding = true;
    expect(await store.writeUnderLock('globex', groupEntry('tok-late'), 60_000)).toBe('slow');
    expect(store.awaitsWrite('globex', groupEntry('tok-late'))).toBe(true);
    await answerLate(late);
  });

  it('a store that refuses (lost, not slow) keeps the local fallback: a lock of its own, the copy on a failed re-read', async () => {
    const inner = createMemoryStore();
    const down = { now: false };
    const refusing: TokenStore = {
      ...slowStore(inner, lateOf()),
      get: (key) => (down.now ? Promise.reject(new Error('connect ECONNREFUSED')) : inner.get(key)),
      tryLock: (name, ttl) => (down.now ? Promise.reject(new Error('connect ECONNREFUSED')) : inner.tryLock(name, ttl)),
    };
    const metrics = createBffMetrics();
    const store = new GuardedStore(refusing, captureLogs().logger, metrics, 30, Date.now);
    await store.set('acme', groupEntry('tok-cached'), 60_000);
    down.now = true;
    expect(await store.tryLock('sync:acme', 60_000)).toMatchObject({ shared: false });
    expect(await store.readUnderLock('acme')).toEqual(groupEntry('tok-cached'));
    expect((await metrics.storeLocalLocks.get()).values[0]?.value).toBe(1);
  });

  it('a holder whose write the slow store did not take keeps its lock and writes again, then releases it', async () => {
    const { inner, late, store } = await skippingProcess();
    const pauses: (() => void)[] = [];
    const entries = new GroupEntries(store, {
      account: undefined,
      entryTtlMs: 60_000,
      lockTtlMs: 6_000,
      lockWaitMs: 5_000,
      pollIntervalMs: 25,
      now: Date.now,
      sleep: () => new Promise<void>((resume) => pauses.push(resume)),
    });
    const answered = await entries.exclusive(
      'sync:acme',
      'acme',
      () => true,
      async (held) => {
        late.holding = true;
        await held.write(groupEntry('tok-ours'));
        late.holding = false;
        return 'served';
      },
      'testing',
    );
    // The caller is served; the lock stays (before: released with the entry only in this process).
    expect(answered).toBe('served');
    expect(inner.peek('acme')).toBeUndefined();
    expect(await inner.tryLock('sync:acme', 1_000)).toBeUndefined();
    await vi.waitFor(() => expect(pauses).toHaveLength(1));
    pauses.shift()!();
    await vi.waitFor(() => expect(inner.peek('acme')?.token).toBe('tok-ours'));
    await vi.waitFor(async () => expect(await inner.tryLock('sync:acme', 1_000)).toBeDefined());
    await answerLate(late);
  });
});

describe('Two BFF processes over one slow store (a CPU-starved machine): one vendor call per customer', () => {
  /**
   * Two apps sharing one memory store and one vendor, each through its own slow wrapper, with a
   * 30 ms store deadline and a clock that stands still (a skip lasts until a late answer lifts it).
   * `failing(i)` resolves when process i logs that its store is failing (it then skips the store).
   */
  function fleetOfTwo(lockWaitMs?: number) {
    const inner = createMemoryStore();
    const keys = new Set<string>();
    const set = inner.set.bind(inner);
    inner.set = (key, entry, ttlMs) => {
      keys.add(key);
      return set(key, entry, ttlMs);
    };
    const upstream = new FakeUpstream();
    const calls = new Map<string, number>();
    const getOrCreate = upstream.getOrCreateUserGroup.bind(upstream);
    upstream.getOrCreateUserGroup = (input) => {
      calls.set(input.user_group_id, (calls.get(input.user_group_id) ?? 0) + 1);
      return getOrCreate(input);
    };
    const now = Date.now();
    const lates = [lateOf((key) => key.includes('globex')), lateOf((key) => key.includes('globex'))];
    const failing = lates.map(() => {
      let said = () => {};
      const promise = new Promise<void>((resolve) => (said = resolve));
      return { promise, said };
    });
    const apps = lates.map((late, i) =>
      createBffApp({
        upstream,
        session: { secret: SESSION_SECRET },
        logger: createJsonLogger({ write: (line) => void (line.includes('store failing') && failing[i]!.said()), level: 'debug' }),
        rateLimit: false,
        store: slowStore(inner, late),
        storeTimeoutMs: 30,
        lockWaitMs,
        now: () => now,
        clock: () => now,
        sleep: () => Promise.resolve(),
      }),
    );
    const callsFor = (org: string) => [...calls].filter(([id]) => id.includes(org)).reduce((sum, [, n]) => sum + n, 0);
    return { inner, keys, upstream, apps, lates, failing: (i: number) => failing[i]!.promise, callsFor };
  }
  const globex = { org_id: 'globex', org_name: 'Globex', embed_properties: { region: 'US' } };

  it('the holder writes its entry to the store even while skipping it, so the next process reads it (before: two get-or-create)', async () => {
    const fleet = fleetOfTwo();
    const [a, b] = fleet.apps as [Hono, Hono];
    const [jwt, jwtGlobex] = [await session(), await session(globex)];
    const gate = deferred();
    fleet.upstream.gate = gate.promise;
    const first = call(a, '/embed/token', tokenRequest(jwt));
    await vi.waitFor(() => expect(fleet.callsFor('acme')).toBe(1));
    // While A waits for the vendor, one of its store calls misses the deadline: it skips the store.
    fleet.lates[0]!.holding = true;
    const other = call(a, '/embed/token', tokenRequest(jwtGlobex));
    await fleet.failing(0);
    fleet.lates[0]!.holding = false;
    gate.resolve();
    expect((await first).status).toBe(200);
    const second = await call(b, '/embed/token', tokenRequest(jwt));
    expect(second.status).toBe(200);
    expect((second.body as { token: string }).token).toBe(((await first).body as { token: string }).token);
    expect(fleet.callsFor('acme')).toBe(1);
    await answerLate(fleet.lates[0]!);
    await other;
  });

  it('the process that takes the lock right after another wrote re-reads the store, not its skipped copy (before: two get-or-create)', async () => {
    const fleet = fleetOfTwo();
    const [a, b] = fleet.apps as [Hono, Hono];
    const [jwt, jwtGlobex] = [await session(), await session(globex)];
    // A serves the customer first; its entry is taken out, to land again just before B takes the lock.
    const first = await call(a, '/embed/token', tokenRequest(jwt));
    const key = [...fleet.keys].find((k) => k.includes('acme'))!;
    const written = fleet.inner.peek(key)!;
    await fleet.inner.delete(key);
    // B: one call misses its deadline (the skip starts) between B's lock being asked for and answered.
    fleet.lates[1]!.holding = true;
    const other = call(b, '/embed/token', tokenRequest(jwtGlobex));
    fleet.lates[1]!.beforeLock = async (name) => {
      if (!name.includes('acme')) return;
      fleet.lates[1]!.beforeLock = undefined;
      await fleet.inner.set(key, written, 60_000);
      await fleet.failing(1);
    };
    const second = await call(b, '/embed/token', tokenRequest(jwt));
    expect(second.status).toBe(200);
    expect((second.body as { token: string }).token).toBe((first.body as { token: string }).token);
    expect(fleet.callsFor('acme')).toBe(1);
    await answerLate(fleet.lates[1]!);
    await other;
  });

  it('a fresh process (nothing answered yet) whose lock call answers late waits for the holder, never calls the vendor beside it (before: judged lost at its first missed deadline, two get-or-create)', async () => {
    const fleet = fleetOfTwo(100);
    const [a, b] = fleet.apps as [Hono, Hono];
    const jwt = await session(globex);
    const gate = deferred();
    fleet.upstream.gate = gate.promise;
    const first = call(a, '/embed/token', tokenRequest(jwt)); // A holds sync:globex, its vendor call under way
    await vi.waitFor(() => expect(fleet.callsFor('globex')).toBe(1));
    // B has asked the store nothing yet; every call of its for this customer answers late.
    fleet.lates[1]!.holding = true;
    const second = await call(b, '/embed/token', tokenRequest(jwt));
    expect(second.status).toBe(503);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(fleet.callsFor('globex')).toBe(1);
    gate.resolve();
    expect((await first).status).toBe(200);
    await answerLate(fleet.lates[1]!);
    expect((await call(b, '/embed/token', tokenRequest(jwt))).status).toBe(200);
    expect(fleet.callsFor('globex')).toBe(1);
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
    return {
      state,
      restartEmpty,
      get inner() {
        return state.inner;
      },
      store: new GuardedStore(flaky, captureLogs().logger, createBffMetrics(), 1_000, now, now),
    };
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

describe('GuardedStore: slow or lost is judged by the age of the oldest unanswered call, per key', () => {
  it('an idle process (its last answer 10 s ago) whose lock call misses the deadline judges the store slow: no lock of its own while another process holds it', async () => {
    const inner = createMemoryStore();
    let clock = 1_000_000;
    const late = lateOf();
    const metrics = createBffMetrics();
    const store = new GuardedStore(slowStore(inner, late), captureLogs().logger, metrics, 30, Date.now, () => clock);
    await store.get('acme');
    clock += 10_000; // no traffic for 10 s (a quiet process behind the load balancer)
    expect(await inner.tryLock('sync:acme', 60_000)).toBeDefined(); // another process holds the group's lock
    late.holding = true;
    expect(await store.tryLock('sync:acme', 60_000)).toBeUndefined(); // before: a local lock (nothing answered for 3 s)
    expect((await metrics.storeLocalLocks.get()).values[0]?.value ?? 0).toBe(0);
    await answerLate(late);
  });

  it('a key whose calls never answer while the others do (a paused cluster master) is lost after 3 s: its lock is granted here, not refused for good', async () => {
    const inner = createMemoryStore();
    let clock = 1_000_000;
    const late = lateOf((key) => key.includes('globex'));
    late.holding = true;
    const store = new GuardedStore(slowStore(inner, late), captureLogs().logger, createBffMetrics(), 30, Date.now, () => clock);
    const outcomes: string[] = [];
    for (let second = 0; second < 6; second++) {
      clock += 1_000;
      const lock = await store.tryLock('sync:acme', 1_000); // other customers' traffic, answered in time
      expect(lock?.shared).toBe(true);
      await lock?.release();
      const globex = await store.tryLock('sync:globex', 1_000);
      outcomes.push(globex === undefined ? 'busy' : globex.shared ? 'shared' : 'local');
    }
    // Unanswered for 1 s, 2 s: slow (wait as for a holder); from 3 s on: lost (before: 'busy' for good, 503 group_busy forever).
    expect(outcomes).toEqual(['busy', 'busy', 'busy', 'local', 'local', 'local']);
    // acme is not lost meanwhile: a late answer of its own is slow, as before.
    expect(await inner.tryLock('sync:acme', 60_000)).toBeDefined();
    late.only = () => true;
    expect(await store.tryLock('sync:acme', 1_000)).toBeUndefined();
    await answerLate(late);
  });

  it('an error reply (READONLY during a failover) is the store answering: no lock of its own (before: a local lock, the store judged lost)', async () => {
    const inner = createMemoryStore();
    const metrics = createBffMetrics();
    const readonly: TokenStore = {
      ...inner,
      get: (k) => inner.get(k),
      ping: () => inner.ping(),
      close: () => inner.close(),
      set: (k, e, t) => inner.set(k, e, t),
      delete: (k) => inner.delete(k),
      hit: (k, w) => inner.hit(k, w),
      tryLock: () =>
        Promise.reject(
          new RedisStoreError('unavailable', 'Redis store tryLock failed', { cause: new ReplyError("READONLY You can't write against a read only replica.") }),
        ),
    };
    const store = new GuardedStore(readonly, captureLogs().logger, metrics, 30, Date.now, () => 0);
    expect(await store.tryLock('sync:acme', 1_000)).toBeUndefined();
    expect((await metrics.storeLocalLocks.get()).values[0]?.value ?? 0).toBe(0);
  });
});

describe('GroupEntries: the lock protocol under a slow store', () => {
  const settings = (clock: () => number, sleep: (ms: number) => Promise<void>) => ({
    account: undefined,
    entryTtlMs: 60_000,
    lockTtlMs: 6_000,
    lockWaitMs: 5_000,
    pollIntervalMs: 25,
    now: Date.now,
    clock,
    sleep,
  });

  it("a waiter's wait is bounded by the clock, its asks of a slow store included: 503 group_busy within the request's 8 s, not 5 s of sleeps plus a deadline per poll", async () => {
    const inner = createMemoryStore();
    let clock = 0;
    // Every lock call is answered "busy" one store deadline (1 s) after it was asked.
    const slowLocks: TokenStore = {
      get: (k) => inner.get(k),
      set: (k, e, t) => inner.set(k, e, t),
      delete: (k) => inner.delete(k),
      hit: (k, w) => inner.hit(k, w),
      ping: () => inner.ping(),
      close: () => inner.close(),
      tryLock: async () => ((clock += 1_000), undefined),
    };
    const store = new GuardedStore(slowLocks, captureLogs().logger, createBffMetrics(), 1_000, Date.now, () => clock);
    const sleep = (ms: number) => ((clock += ms), Promise.resolve());
    const entries = new GroupEntries(
      store,
      settings(() => clock, sleep),
    );
    await expect(
      entries.exclusive(
        'sync:acme',
        'acme',
        () => true,
        async () => 'x',
        'testing',
      ),
    ).rejects.toThrow(/another process/);
    // Before: ~33 s (5 s of sleeps, and 28 polls each waiting out its deadline).
    expect(clock).toBeLessThanOrEqual(5_000 + 1_000);
  });

  it("a holder writing again stops once its lock is gone (expired, taken by another process): the new holder's entry is never overwritten", async () => {
    const inner = createMemoryStore();
    const late = lateOf((key) => key === 'acme');
    let extends_ = 0;
    let handle: LockHandle | undefined;
    const slow = slowStore(inner, late);
    const tracked: TokenStore = {
      ...slow,
      tryLock: async (name, ttl) => {
        handle = await inner.tryLock(name, ttl);
        if (handle === undefined) return undefined;
        const own = handle;
        return { release: () => own.release(), extend: (ms) => ((extends_ += 1), own.extend!(ms)) };
      },
    };
    const store = new GuardedStore(tracked, captureLogs().logger, createBffMetrics(), 30, Date.now, () => 0);
    const pauses: (() => void)[] = [];
    const entries = new GroupEntries(
      store,
      settings(
        () => 0,
        () => new Promise<void>((resolve) => pauses.push(resolve)),
      ),
    );
    await entries.exclusive(
      'sync:acme',
      'acme',
      () => true,
      async (held) => {
        late.holding = true;
        await held.write(groupEntry('tok-A')); // not taken in time: A answers its caller and will write again
        return 'served';
      },
      'testing',
    );
    // A's lock is lost (it stalled past the lock's lifetime, or a failover lost the lock key); B takes it and writes.
    await handle!.release();
    const b = await inner.tryLock('sync:acme', 6_000);
    expect(b).toBeDefined();
    await inner.set('acme', groupEntry('tok-B'), 60_000);
    late.holding = false;
    await vi.waitFor(() => expect(pauses).toHaveLength(1));
    pauses.shift()!(); // A's next attempt
    await vi.waitFor(() => expect(extends_).toBe(1)); // it asks whether it still holds the lock: no
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(inner.peek('acme')?.token).toBe('tok-B'); // before: tok-A (a plain set, no check of the lock)
    expect(pauses).toHaveLength(0); // no further attempt
    expect(await inner.tryLock('sync:acme', 6_000)).toBeUndefined(); // and B's lock was not released by A
    await answerLate(late); // A's first write, held back, lands late; the store copes as with any late write
  });
});
