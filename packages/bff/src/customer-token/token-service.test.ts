import { afterAll, describe, expect, it } from 'vitest';
import { UserGroupApiFailureError, UserGroupNetworkError, UserGroupTimeoutError } from '@embedded-dashboard/client';
import { renewalDelayMs, rotationSpacingMs } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { createMemoryStore } from '../store/memory.js';
import type { TokenStore } from '../store/types.js';
import { acme, API_TOKEN, call, captureLogs, deferred, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  let t = Date.now();
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const app = createBffApp({
    upstream,
    session: { secret: SESSION_SECRET },
    logger: logs.logger,
    secrets: [API_TOKEN],
    rateLimit: false,
    now: clock.now,
    clock: clock.now,
    sleep: () => Promise.resolve(),
    ...overrides,
  });
  return { app, upstream, logs, clock };
}

const getToken = (app: ReturnType<typeof setup>['app'], jwt: string) => call(app, '/embed/token', tokenRequest(jwt));
const rotate = (app: ReturnType<typeof setup>['app'], jwt: string, token: string) => call(app, '/embed/token/rotate', tokenRequest(jwt, { token }));

afterAll(() => expect(findLeaks()).toEqual([]));

/**
 * A barrier on arrivals, instead of a guess of how long they take: a memory store whose locks are
 * granted only once `n` requests have read their group's entry (counted from `expect(n)`). The
 * single flight takes its lock before it reads, so every read counted is a request arriving, and
 * the vendor is called only when all of them are in.
 */
function arrivalBarrier() {
  const inner = createMemoryStore();
  let expected = Number.POSITIVE_INFINITY;
  let reads = 0;
  let release = () => {};
  let arrived = Promise.resolve();
  const store: TokenStore = {
    get: (k) => inner.get(k),
    set: (k, e, t) => inner.set(k, e, t),
    delete: (k) => inner.delete(k),
    hit: (k, w) => inner.hit(k, w),
    ping: () => inner.ping(),
    close: () => inner.close(),
    hitNow: (k, w) => inner.hitNow(k, w),
    peek: (k) => {
      reads += 1;
      if (reads === expected) release();
      return inner.peek(k);
    },
    tryLock: async (name, ttlMs) => {
      await arrived;
      return inner.tryLock(name, ttlMs);
    },
  };
  return {
    store,
    /** Resolves once `n` more reads have come in; until then no lock is granted. */
    expect(n: number): Promise<void> {
      reads = 0;
      expected = n;
      arrived = new Promise((resolve) => (release = resolve));
      return arrived;
    },
  };
}

const countOf = async (counter: { get(): Promise<{ values: Array<{ labels: Record<string, unknown>; value: number }> }> }, label: string) =>
  (await counter.get()).values.find((v) => Object.values(v.labels).includes(label))?.value ?? 0;

describe('POST /embed/token', () => {
  it('answers exactly { token, expiresAt, serverTime } with expiresAt = first seen + TTL', async () => {
    const { app, upstream, clock } = setup({ tokenTtlSeconds: 600 });
    const jwt = await session();
    const res = await getToken(app, jwt);
    expect(res.status).toBe(200);
    const token = upstream.groups.get('acme')!.token;
    expect(res.body).toEqual({ token, expiresAt: clock.now() + 600_000, serverTime: clock.now() });
    expect(res.headers.get('cache-control')).toBe('no-store');
    clock.advance(5_000);
    const again = await getToken(app, jwt);
    expect(again.body).toEqual({ token, expiresAt: clock.now() - 5_000 + 600_000, serverTime: clock.now() });
  });

  it('answers expiresAt null when the TTL is 0', async () => {
    const { app } = setup({ tokenTtlSeconds: 0 });
    const res = await getToken(app, await session());
    expect((res.body as { expiresAt: unknown }).expiresAt).toBeNull();
  });

  it('creates a new group with one get-or-create and no update, then serves it from the cache', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    for (let i = 0; i < 5; i++) expect((await getToken(app, jwt)).status).toBe(200);
    expect(upstream.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
  });

  it('makes one upstream call for a burst of concurrent first requests of one group', async () => {
    const barrier = arrivalBarrier();
    const metrics = createBffMetrics();
    const { app, upstream } = setup({ store: barrier.store, metrics });
    const jwts = await Promise.all(Array.from({ length: 20 }, (_, i) => session({ ...acme, sub: `user-${i}` })));
    const arrived = barrier.expect(20);
    const pending = jwts.map((jwt) => getToken(app, jwt));
    await arrived;
    const results = await Promise.all(pending);
    expect(new Set(results.map((r) => (r.body as { token: string }).token)).size).toBe(1);
    expect(upstream.calls.getOrCreate).toBe(1);
    // Every request missed and joined the one sync: none was served from an entry it had written.
    expect(await countOf(metrics.cacheLookups, 'miss')).toBe(20);
  });

  it('makes G calls for N requests over G new groups', async () => {
    const { app, upstream } = setup();
    const groups = ['a', 'b', 'c', 'd'];
    const jwts = await Promise.all(groups.map((g) => session({ org_id: g, org_name: g.toUpperCase(), embed_properties: {} })));
    await Promise.all(Array.from({ length: 40 }, (_, i) => getToken(app, jwts[i % groups.length]!)));
    expect(upstream.calls).toEqual({ getOrCreate: 4, update: 0, rotate: 0 });
  });

  it('updates the vendor before handing out the token when the session changed name, properties or mapping', async () => {
    const { app, upstream } = setup();
    await getToken(app, await session());
    await getToken(app, await session({ ...acme, embed_properties: { region: 'US', plan: 'pro' } }));
    expect(upstream.calls.update).toBe(1);
    expect(upstream.groups.get('acme')!.group.properties).toEqual({ region: 'US', plan: 'pro' });
    await getToken(app, await session({ ...acme, org_name: 'Acme Inc' }));
    await getToken(app, await session({ ...acme, embed_properties: { region: 'US', plan: 'pro' }, org_name: 'Acme Inc', embed_mapping: { s: 'd2' } }));
    expect(upstream.calls.update).toBe(3);
    expect(upstream.groups.get('acme')!.group).toMatchObject({ name: 'Acme Inc', mapping: { s: 'd2' } });
  });

  it('does not update when only the claim order differs', async () => {
    const { app, upstream } = setup();
    await getToken(app, await session({ org_id: 'acme', org_name: 'Acme', embed_properties: { a: 1, b: 2 } }));
    await getToken(app, await session({ embed_properties: { b: 2, a: 1 }, org_name: 'Acme', org_id: 'acme' }));
    expect(upstream.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
  });

  it('updates a group the vendor already had but this BFF never synced (drift unknown)', async () => {
    const { app, upstream } = setup();
    upstream.groups.set('acme', { group: { user_group_id: 'acme', name: 'Old', properties: { region: 'OLD' }, mapping: {} }, token: 'existing-token' });
    const res = await getToken(app, await session());
    expect((res.body as { token: string }).token).toBe('existing-token');
    expect(upstream.calls).toEqual({ getOrCreate: 1, update: 1, rotate: 0 });
    expect(upstream.groups.get('acme')!.group.properties).toEqual(acme.embed_properties);
  });

  it('revalidates with get-or-create after the configured time, keeping first-seen when the token is unchanged', async () => {
    const { app, upstream, clock } = setup({ revalidateAfterSeconds: 60, tokenTtlSeconds: 3600 });
    const jwt = await session();
    const first = (await getToken(app, jwt)).body as { expiresAt: number };
    clock.advance(59_000);
    await getToken(app, jwt);
    expect(upstream.calls.getOrCreate).toBe(1);
    clock.advance(1_000);
    const later = (await getToken(app, jwt)).body as { expiresAt: number };
    expect(upstream.calls).toEqual({ getOrCreate: 2, update: 0, rotate: 0 });
    expect(later.expiresAt).toBe(first.expiresAt);
  });

  it('refuses loudly when the vendor says the group is in the other environment', async () => {
    const { app, upstream, logs } = setup({ expectEnvironment: 'Customer' });
    upstream.environment = 'Testing';
    const res = await getToken(app, await session());
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
    expect((res.body as { error: { message: string } }).error.message).toMatch(/Testing.*Customer/);
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('environment mismatch'))).toBe(true);
  });

  it('learns the environment once per vendor account (a probe group: one get-or-create, one update), then one get-or-create per new customer', async () => {
    const { app, upstream } = setup({ expectEnvironment: 'Customer' });
    const jwt = await session();
    expect((await getToken(app, jwt)).status).toBe(200);
    expect((await getToken(app, jwt)).status).toBe(200);
    expect((await getToken(app, await session({ ...acme, org_id: 'globex', org_name: 'Globex' }))).status).toBe(200);
    expect(upstream.calls).toEqual({ getOrCreate: 3, update: 1, rotate: 0 });
    expect(upstream.groups.has('embedded-dashboard-environment-probe')).toBe(true);
  });
});

describe('POST /embed/token/rotate', () => {
  it('rotates when the holder presents the current token, and answers the new one', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    const res = await rotate(app, jwt, token);
    expect(res.status).toBe(200);
    const next = (res.body as { token: string }).token;
    expect(next).not.toBe(token);
    expect(next).toBe(upstream.groups.get('acme')!.token);
    expect(upstream.calls.rotate).toBe(1);
    expect((await getToken(app, jwt)).body).toMatchObject({ token: next });
  });

  it('answers a stale holder (previous token) with the current token and no second rotation', async () => {
    const { app, upstream, clock } = setup();
    const jwt = await session();
    const { token: old } = (await getToken(app, jwt)).body as { token: string };
    const { token: current } = (await rotate(app, jwt, old)).body as { token: string };
    clock.advance(3_600_000);
    const stale = await rotate(app, jwt, old);
    expect(stale.body).toMatchObject({ token: current });
    expect(upstream.calls.rotate).toBe(1);
  });

  it("never touches another group when a caller presents that group's token", async () => {
    const { app, upstream } = setup();
    const acmeJwt = await session();
    const globexJwt = await session({ org_id: 'globex', org_name: 'Globex', embed_properties: { region: 'US' } });
    const { token: acmeToken } = (await getToken(app, acmeJwt)).body as { token: string };
    const { token: globexToken } = (await getToken(app, globexJwt)).body as { token: string };
    const res = await rotate(app, globexJwt, acmeToken);
    expect(res.body).toMatchObject({ token: globexToken });
    expect(upstream.calls.rotate).toBe(0);
    expect(upstream.groups.get('acme')!.token).toBe(acmeToken);
  });

  it('rotates once for concurrent rotations of one group', async () => {
    const barrier = arrivalBarrier();
    const metrics = createBffMetrics();
    const { app, upstream } = setup({ store: barrier.store, metrics });
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    const arrived = barrier.expect(10);
    const pending = Array.from({ length: 10 }, () => rotate(app, jwt, token));
    await arrived;
    const results = await Promise.all(pending);
    expect(new Set(results.map((r) => (r.body as { token: string }).token)).size).toBe(1);
    expect(upstream.calls.rotate).toBe(1);
    // All ten joined the one rotation: a late one would have been answered as a stale holder ('current').
    expect(await countOf(metrics.rotations, 'current')).toBe(0);
    expect(await countOf(metrics.rotations, 'rotated')).toBe(1);
  });

  it("spaces renewals by the protocol's rule for a short lifetime: a quarter of it, so the element's scheduled renewal is never refused", async () => {
    // EMBED_TOKEN_TTL=30 with the default 10 s cap: the element renews 20 s after its token
    // (renewalDelayMs), and the BFF's spacing is 7.5 s: before, 10 s against the element's 5 s.
    const { app, upstream, clock } = setup({ tokenTtlSeconds: 30 });
    const jwt = await session();
    const { token: t0, expiresAt, serverTime } = (await getToken(app, jwt)).body as { token: string; expiresAt: number; serverTime: number };
    const { token: t1 } = (await rotate(app, jwt, t0)).body as { token: string };
    const spacing = rotationSpacingMs(30_000);
    expect(spacing).toBe(7_500);
    expect(renewalDelayMs(expiresAt - serverTime)).toBeGreaterThan(spacing);
    clock.advance(spacing - 500);
    const early = await rotate(app, jwt, t1);
    expect(early.status).toBe(429);
    expect(early.headers.get('retry-after')).toBe('1');
    clock.advance(500);
    const { token: t2 } = (await rotate(app, jwt, t1)).body as { token: string };
    expect(t2).not.toBe(t1);
    // Each renewal at the element's schedule goes through.
    clock.advance(renewalDelayMs(30_000));
    expect((await rotate(app, jwt, t2)).status).toBe(200);
    expect(upstream.calls.rotate).toBe(3);
  });

  it('answers the holder 429 with Retry-After within the minimum interval, and rotates again after it', async () => {
    const { app, upstream, clock } = setup({ minRotationIntervalSeconds: 30 });
    const jwt = await session();
    const { token: t0 } = (await getToken(app, jwt)).body as { token: string };
    const { token: t1 } = (await rotate(app, jwt, t0)).body as { token: string };

    // The holder of t1 presents it because the vendor refused it: t1 again would be a dead token.
    clock.advance(20_500);
    const early = await rotate(app, jwt, t1);
    expect(early.status).toBe(429);
    expect(early.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String), retryable: true } });
    expect(early.headers.get('retry-after')).toBe('10');
    expect(early.headers.get('cache-control')).toBe('no-store');
    clock.advance(9_499);
    const last = await rotate(app, jwt, t1);
    expect(last.status).toBe(429);
    expect(last.headers.get('retry-after')).toBe('1');

    // A stale holder (t0) still gets the current token inside the interval.
    expect(await rotate(app, jwt, t0)).toMatchObject({ status: 200, body: { token: t1 } });
    expect(upstream.calls.rotate).toBe(1);

    clock.advance(1);
    const after = await rotate(app, jwt, t1);
    expect(after.status).toBe(200);
    expect((after.body as { token: string }).token).not.toBe(t1);
    expect(upstream.calls.rotate).toBe(2);
  });

  it('counts throttled rotations in the metrics and never rotates during the interval', async () => {
    const metrics = createBffMetrics();
    const { app, upstream } = setup({ metrics });
    const jwt = await session();
    const { token: t0 } = (await getToken(app, jwt)).body as { token: string };
    const { token: t1 } = (await rotate(app, jwt, t0)).body as { token: string };
    const answers = await Promise.all(Array.from({ length: 5 }, () => rotate(app, jwt, t1)));
    expect(answers.map((a) => a.status)).toEqual([429, 429, 429, 429, 429]);
    expect(answers.map((a) => a.headers.get('retry-after'))).toEqual(['10', '10', '10', '10', '10']);
    expect(upstream.calls.rotate).toBe(1);
    const text = await metrics.registry.metrics();
    expect(text).toContain('embed_bff_rotations_total{result="throttled"} 5');
    expect(text).toContain('embed_bff_token_requests_total{route="rotate",outcome="rate_limited"} 5');
    // Expected refusals: counted by reason, summarised instead of an info line each.
    expect(text).toContain('embed_bff_refusals_total{reason="rotation_throttle"} 5');
  });

  it('recovers from an ambiguous rotate failure with get-or-create when the rotation happened', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    upstream.rotateHappenedBeforeFailure = true;
    upstream.failNext.rotate = [new UserGroupTimeoutError('rotate timed out')];
    const res = await rotate(app, jwt, token);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token: upstream.groups.get('acme')!.token });
    expect((res.body as { token: string }).token).not.toBe(token);
    expect(upstream.calls).toMatchObject({ rotate: 1, getOrCreate: 2 });
  });

  it('reports the failure when the ambiguous rotation did not happen', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    upstream.failNext.rotate = [new UserGroupNetworkError('socket hang up')];
    const res = await rotate(app, jwt, token);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
    expect(upstream.calls.rotate).toBe(1);
  });

  it('reports a rotate refusal (502) once one get-or-create shows the token is still current; never retries the rotation', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    upstream.failNext.rotate = [new UserGroupApiFailureError('success: 0')];
    const res = await rotate(app, jwt, token);
    expect(res.status).toBe(502);
    expect(upstream.calls).toMatchObject({ rotate: 1, getOrCreate: 2 });
  });

  it('repairs a rotation the vendor refused because the token was rotated already: answers the token the vendor names, not a 502', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const { token: dead } = (await getToken(app, jwt)).body as { token: string };
    // Rotated behind this process's back: by another process while the store was away, or by one
    // that died before it stored the new token.
    upstream.groups.get('acme')!.token = 'rotated-elsewhere';
    const res = await rotate(app, jwt, dead);
    expect(res).toMatchObject({ status: 200, body: { token: 'rotated-elsewhere' } });
    expect(upstream.calls).toMatchObject({ rotate: 1, getOrCreate: 2 });
    // Stored: the next request is answered with it, and the dead token's holder too.
    expect((await getToken(app, jwt)).body).toMatchObject({ token: 'rotated-elsewhere' });
    expect(upstream.calls).toMatchObject({ rotate: 1, getOrCreate: 2 });
  });

  it('refuses a rotation whose answer shows the other environment', async () => {
    const { app, upstream } = setup({ expectEnvironment: 'Customer' });
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    upstream.environment = 'Testing';
    expect((await rotate(app, jwt, token)).status).toBe(502);
  });
});

describe('rotation metrics', () => {
  const counts = async (metrics: ReturnType<typeof createBffMetrics>) =>
    Object.fromEntries((await metrics.rotations.get()).values.map((v) => [v.labels.result, v.value]));

  it('counts each rotation request once by result: rotated, current, throttled, recovered, refused', async () => {
    const metrics = createBffMetrics();
    const { app, upstream, clock } = setup({ metrics });
    const jwt = await session();
    const { token: t0 } = (await getToken(app, jwt)).body as { token: string };
    // Concurrent holders share one rotation: one count for the flight, as for one request.
    const gate = deferred();
    upstream.gate = gate.promise;
    const both = Promise.all([rotate(app, jwt, t0), rotate(app, jwt, t0)]);
    await new Promise((r) => setTimeout(r, 10));
    gate.resolve();
    upstream.gate = undefined;
    const [{ body }] = await both;
    const t1 = (body as { token: string }).token;
    expect(await rotate(app, jwt, t0)).toMatchObject({ status: 200, body: { token: t1 } });
    expect((await rotate(app, jwt, t1)).status).toBe(429);
    clock.advance(10_000);
    upstream.rotateHappenedBeforeFailure = true;
    upstream.failNext.rotate = [new UserGroupTimeoutError('rotate timed out')];
    const recovered = await rotate(app, jwt, t1);
    expect(recovered.status).toBe(200);
    clock.advance(10_000);
    const t2 = (recovered.body as { token: string }).token;
    const rotateOriginal = upstream.rotateUserGroupToken.bind(upstream);
    upstream.rotateUserGroupToken = async (current) => {
      const answer = await rotateOriginal(current);
      return { ...answer, user_group: { ...answer.user_group, provided_id: 'globex' } };
    };
    expect((await rotate(app, jwt, t2)).status).toBe(502);
    expect(await counts(metrics)).toEqual({ rotated: 1, current: 1, throttled: 1, recovered: 1, refused: 1 });
  });
});

describe('rotation answered for another group', () => {
  it('withholds the token (502, error line) and re-reads the group on the next request', async () => {
    const { app, upstream, logs } = setup();
    const jwt = await session();
    const { token } = (await getToken(app, jwt)).body as { token: string };
    const rotateOriginal = upstream.rotateUserGroupToken.bind(upstream);
    upstream.rotateUserGroupToken = async (current) => {
      const answer = await rotateOriginal(current);
      return { ...answer, user_group: { ...answer.user_group, provided_id: 'globex' } };
    };
    const res = await rotate(app, jwt, token);
    expect(res.status).toBe(502);
    expect((res.body as { error: { code: string } }).error.code).toBe('upstream_error');
    const rotated = upstream.groups.get('acme')!.token;
    expect(res.text).not.toContain(rotated);
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('another user group'))).toBe(true);
    const before = upstream.calls.getOrCreate;
    expect((await getToken(app, jwt)).body).toMatchObject({ token: rotated });
    expect(upstream.calls.getOrCreate).toBe(before + 1);
  });
});

describe('an entry pinned by a session from the future', () => {
  it('is rewritten by the next correct session: a recorded iat beyond the clock skew orders nothing', async () => {
    const store = createMemoryStore();
    const { app, upstream, clock } = setup({ store, keyPrefix: 'pinned:' });
    const first = ((await getToken(app, await session())).body as { token: string }).token;
    // What a session an hour ahead left behind before such sessions were refused: region ALL, pinned.
    const entry = (await store.get('pinned:acme'))!;
    upstream.groups.get('acme')!.group.properties = { region: 'ALL' };
    await store.set('pinned:acme', { ...entry, fingerprint: 'fingerprint-of-region-all', claimsIssuedAt: clock.now() + 3_600_000 }, 86_400_000);
    expect((await getToken(app, await session())).body).toMatchObject({ token: first });
    expect(upstream.groups.get('acme')!.group.properties).toEqual(acme.embed_properties);
    expect((await store.get('pinned:acme'))!.claimsIssuedAt).toBeLessThanOrEqual(clock.now());
  });
});

describe('store shared by several BFF processes', () => {
  /**
   * Two BFF processes (apps) sharing one memory store and one fake vendor; `hold()` holds the
   * vendor's answers until the gate it returns resolves; `overlap(jwt)` holds them while A asks
   * for the token, B asks 5 ms later, and releases them 30 ms after that: both answers, pending.
   */
  function twoProcesses(options: Partial<BffAppOptions> = {}, onlyB: Partial<BffAppOptions> = {}) {
    const upstream = new FakeUpstream();
    const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
    const opts = {
      upstream,
      session: { secret: SESSION_SECRET },
      store: createMemoryStore(),
      logger: captureLogs().logger,
      rateLimit: false as const,
      sleep,
      ...options,
    };
    const hold = () => {
      const gate = deferred();
      upstream.gate = gate.promise;
      return gate;
    };
    const a = createBffApp(opts);
    const b = createBffApp({ ...opts, ...onlyB });
    const overlap = async (jwt: string) => {
      const gate = hold();
      const first = getToken(a, jwt);
      await new Promise((r) => setTimeout(r, 5));
      const second = getToken(b, jwt);
      await new Promise((r) => setTimeout(r, 30));
      gate.resolve();
      return [first, second] as const;
    };
    return { upstream, a, b, hold, overlap };
  }

  /** Until process A's held vendor call has started, so A holds the group's lock (at most 5 s, not a guess of a few ms). */
  async function untilCalled(upstream: FakeUpstream, call: 'getOrCreate' | 'rotate'): Promise<void> {
    for (let i = 0; i < 1_000 && upstream.calls[call] < 1; i++) await new Promise((r) => setTimeout(r, 5));
    expect(upstream.calls[call], `process A's ${call} call started`).toBe(1);
  }

  it('never hands out an entry another vendor account wrote, even under the same key', async () => {
    const store = createMemoryStore();
    const a = Object.assign(new FakeUpstream(), { accountId: 'account-a' });
    const b = Object.assign(new FakeUpstream(), { accountId: 'account-b' });
    const opts = { session: { secret: SESSION_SECRET }, store, keyPrefix: 'shared:', logger: captureLogs().logger, rateLimit: false as const };
    const appA = createBffApp({ ...opts, upstream: a });
    const appB = createBffApp({ ...opts, upstream: b });
    const jwt = await session();
    expect((await getToken(appA, jwt)).body).toMatchObject({ token: a.groups.get('acme')!.token });
    expect((await getToken(appB, jwt)).body).toMatchObject({ token: b.groups.get('acme')!.token });
    expect(a.groups.get('acme')!.token).not.toBe(b.groups.get('acme')!.token);
    // B's entry now holds the key: A's rotate of its own token must not see B's token as current.
    const tokenA = a.groups.get('acme')!.token;
    const res = await rotate(appA, jwt, tokenA);
    expect(res.status).toBe(200);
    expect((res.body as { token: string }).token).toBe(a.groups.get('acme')!.token);
    expect(b.calls.rotate).toBe(0);
  });

  it('refuses an accountId that is not a short string', () => {
    for (const accountId of ['', 'x'.repeat(129), 5]) {
      // The number comes from untyped JavaScript callers.
      expect(() =>
        createBffApp({ upstream: Object.assign(new FakeUpstream(), { accountId: accountId as string }), session: { secret: SESSION_SECRET } }),
      ).toThrow(/accountId/);
    }
  });

  it('single-flights across apps sharing a store: the lock holder calls upstream, the other waits and reads', async () => {
    const { upstream, overlap } = twoProcesses();
    const [ra, rb] = await Promise.all(await overlap(await session()));
    expect((ra.body as { token: string }).token).toBe((rb.body as { token: string }).token);
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it("a process waiting longer than lockWaitMs for another one's sync answers 503 (retry in 1 s), never a second vendor call; the holder's result serves the retry", async () => {
    const logs = captureLogs();
    const metrics = createBffMetrics();
    const { upstream, a, b, hold } = twoProcesses({ lockWaitMs: 60 }, { logger: logs.logger, metrics });
    const gate = hold();
    const jwt = await session();
    const first = getToken(a, jwt);
    await untilCalled(upstream, 'getOrCreate');
    // Before: the waiter gave up after lockWaitMs and called the vendor itself, a second
    // get-or-create for the group, whose own wait and call came on top (504s in a cluster cold burst).
    const waiter = await getToken(b, jwt);
    expect(waiter.status).toBe(503);
    expect(waiter.headers.get('retry-after')).toBe('1');
    expect(waiter.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
    // A refusal on purpose, counted, not an error line: nothing failed.
    expect(await metrics.registry.metrics()).toContain('embed_bff_refusals_total{reason="group_busy"} 1');
    expect(logs.lines.filter((line) => line.includes('"level":"error"'))).toEqual([]);
    gate.resolve();
    const held = await first;
    expect((await getToken(b, jwt)).body).toMatchObject({ token: (held.body as { token: string }).token });
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it('a waiting process takes the lock as soon as the holder ends without a result (its vendor call failed), without waiting out lockWaitMs', async () => {
    let slept = 0;
    const sleep = (ms: number) => ((slept += ms), new Promise<void>((r) => setTimeout(r, ms)));
    const { upstream, overlap } = twoProcesses({ lockWaitMs: 5_000, sleep, circuitBreaker: false });
    upstream.failNext.getOrCreate = [new UserGroupNetworkError('socket hang up')];
    const [first, second] = await overlap(await session());
    expect((await first).status).toBe(503);
    expect((await second).status).toBe(200);
    expect(upstream.calls.getOrCreate).toBe(2);
    expect(slept).toBeLessThan(1_000);
  });

  it('renews a held lock while its holder works, so a slow vendor call is not duplicated by a process that finds the lock expired', async () => {
    // A lock of 900 ms renewed every 300 ms: a stalled event loop (GC, a loaded machine) of a few
    // hundred ms does not let it lapse, which a 90 ms lock did.
    const { upstream, a, b, hold } = twoProcesses({ lockTtlMs: 900, lockWaitMs: 3_000 });
    const gate = hold();
    const jwt = await session();
    const first = getToken(a, jwt);
    await untilCalled(upstream, 'getOrCreate');
    // Longer than three lifetimes of the lock: without renewal it would have expired and been taken.
    expect((await getToken(b, jwt)).status).toBe(503);
    gate.resolve();
    expect((await first).status).toBe(200);
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it("a process waiting for another's rotation longer than lockWaitMs answers 503, never the token it was shown (its holder presents it because the vendor refused it)", async () => {
    const { upstream, a, b, hold } = twoProcesses({ lockWaitMs: 60 });
    const jwt = await session();
    const presented = ((await getToken(a, jwt)).body as { token: string }).token;
    const gate = hold();
    const first = rotate(a, jwt, presented);
    await untilCalled(upstream, 'rotate');
    const waiter = await rotate(b, jwt, presented);
    expect(waiter.status).toBe(503);
    expect(waiter.headers.get('retry-after')).toBe('1');
    gate.resolve();
    const rotated = ((await first).body as { token: string }).token;
    expect((await rotate(b, jwt, presented)).body).toMatchObject({ token: rotated });
    expect(upstream.calls.rotate).toBe(1);
  });

  it("a process waiting for another's sync answers only once the vendor holds the session's properties, never the entry it found stale", async () => {
    const { upstream, a, b, hold } = twoProcesses();
    await getToken(a, await session());
    const changed = await session({ ...acme, embed_properties: { region: 'US', plan: 'pro' } });
    const gate = hold();
    const first = getToken(a, changed);
    await new Promise((r) => setTimeout(r, 5));
    let vendorRegionWhenBAnswered: unknown;
    const second = getToken(b, changed).then((res) => ((vendorRegionWhenBAnswered = upstream.groups.get('acme')!.group.properties.region), res));
    // Several of the waiter's polls go by while A's vendor calls are held.
    await new Promise((r) => setTimeout(r, 120));
    gate.resolve();
    const [ra, rb] = await Promise.all([first, second]);
    expect(rb.status).toBe(200);
    expect((rb.body as { token: string }).token).toBe((ra.body as { token: string }).token);
    expect(vendorRegionWhenBAnswered).toBe('US');
  });

  it("a process waiting for another's rotation of the same token answers the new token, not the one presented", async () => {
    const { upstream, a, b, hold } = twoProcesses();
    const jwt = await session();
    const presented = ((await getToken(a, jwt)).body as { token: string }).token;
    const gate = hold();
    const first = rotate(a, jwt, presented);
    await untilCalled(upstream, 'rotate');
    const second = rotate(b, jwt, presented);
    await new Promise((r) => setTimeout(r, 120));
    gate.resolve();
    const [ra, rb] = await Promise.all([first, second]);
    const rotated = upstream.groups.get('acme')!.token;
    expect(rotated).not.toBe(presented);
    expect(ra.body).toMatchObject({ token: rotated });
    expect(rb.body).toMatchObject({ token: rotated });
    expect(upstream.calls.rotate).toBe(1);
  });
});

describe('synchronous store capability', () => {
  /** A store of our own class (not MemoryTokenStore) over a memory store, counting which reads it gets. */
  const counted = (sync: boolean) => {
    const inner = createMemoryStore();
    const reads = { get: 0, peek: 0, hit: 0, hitNow: 0 };
    const store: TokenStore = {
      get: (k) => (reads.get++, inner.get(k)),
      set: (k, e, t) => inner.set(k, e, t),
      delete: (k) => inner.delete(k),
      tryLock: (n, t) => inner.tryLock(n, t),
      hit: (k, w) => (reads.hit++, inner.hit(k, w)),
      ping: () => inner.ping(),
      close: () => inner.close(),
      ...(sync ? { peek: (k: string) => (reads.peek++, inner.peek(k)), hitNow: (k: string, w: number) => (reads.hitNow++, inner.hitNow(k, w)) } : {}),
    };
    return { store, reads };
  };

  it('reads and counts through peek and hitNow when any store offers them', async () => {
    const { store, reads } = counted(true);
    const { app } = setup({ store, rateLimit: { token: { limit: 100, windowSeconds: 60 } } });
    const jwt = await session();
    for (let i = 0; i < 3; i++) expect((await getToken(app, jwt)).status).toBe(200);
    expect(reads.get).toBe(0);
    expect(reads.hit).toBe(0);
    expect(reads.peek).toBeGreaterThanOrEqual(3);
    expect(reads.hitNow).toBe(3);
  });

  it('always awaits a store without them (a shared store), so no request is answered from a stale local copy', async () => {
    const { store, reads } = counted(false);
    const { app } = setup({ store, rateLimit: { token: { limit: 100, windowSeconds: 60 } } });
    const jwt = await session();
    for (let i = 0; i < 3; i++) expect((await getToken(app, jwt)).status).toBe(200);
    expect(reads.get).toBeGreaterThanOrEqual(3);
    expect(reads.hit).toBe(3);
  });
});

describe('degraded store', () => {
  const broken = (): TokenStore => {
    const fail = () => Promise.reject(new Error('ECONNREFUSED redis'));
    return { get: fail, set: fail, delete: fail, tryLock: fail, hit: fail, ping: fail, close: () => Promise.resolve() };
  };

  it('keeps answering from the vendor, logs a warning, counts it, and /readyz says 503', async () => {
    const metrics = createBffMetrics();
    const { app, upstream, logs } = setup({ store: broken(), metrics, exposeMetrics: true, rateLimit: { token: { limit: 100, windowSeconds: 60 } } });
    const jwt = await session();
    const gate = deferred();
    upstream.gate = gate.promise;
    const pending = Promise.all([getToken(app, jwt), getToken(app, jwt)]);
    // Both requests have missed (and so joined the one sync in flight) before the vendor answers.
    const misses = async () => (await metrics.cacheLookups.get()).values.find((v) => v.labels.result === 'miss')?.value ?? 0;
    for (let i = 0; i < 400 && (await misses()) < 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(await misses()).toBe(2);
    gate.resolve();
    const results = await pending;
    expect(results.map((r) => r.status)).toEqual([200, 200]);
    expect(upstream.calls.getOrCreate).toBe(1);
    expect(logs.lines.some((l) => l.includes('"level":"warn"') && l.includes('store failing'))).toBe(true);
    const ready = await call(app, '/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toEqual({ status: 'unavailable', store: 'down' });
    const exposed = await call(app, '/metrics');
    expect(exposed.text).toMatch(/embed_bff_store_degraded 1/);
    expect(exposed.text).toMatch(/embed_bff_store_failures_total\{op="get"\} [1-9]/);
  });

  it('says ready but degraded when the store answers again after failing', async () => {
    const store = createMemoryStore();
    let down = true;
    const flaky: TokenStore = {
      get: (k) => (down ? Promise.reject(new Error('down')) : store.get(k)),
      set: (k, e, t) => store.set(k, e, t),
      delete: (k) => store.delete(k),
      tryLock: (n, t) => store.tryLock(n, t),
      hit: (k, w) => store.hit(k, w),
      ping: () => store.ping(),
      close: () => store.close(),
    };
    const { app, clock } = setup({ store: flaky });
    await getToken(app, await session());
    expect((await call(app, '/readyz')).body).toEqual({ status: 'ready', store: 'degraded' });
    down = false;
    clock.advance(30_000);
    await getToken(app, await session());
    expect((await call(app, '/readyz')).body).toEqual({ status: 'ready', store: 'ok' });
  });
});
