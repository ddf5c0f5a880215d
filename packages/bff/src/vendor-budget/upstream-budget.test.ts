import { afterAll, describe, expect, it } from 'vitest';
import { UserGroupRateLimitedError } from '@embedded-dashboard/client';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { createMemoryStore } from '../store/memory.js';
import { call, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';

/** A BFF on the fake vendor with a manual clock; `sleep` advances it, as waiting would. */
function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const metrics = createBffMetrics();
  let t = Date.now();
  const clock = { now: () => t, advance: (ms: number) => (t += ms) };
  const app = createBffApp({
    upstream,
    metrics,
    session: { secret: SESSION_SECRET },
    logger: captureLogs().logger,
    rateLimit: false,
    now: clock.now,
    sleep: async (ms) => {
      clock.advance(ms);
    },
    // The in-memory budget runs on its store's clock.
    store: createMemoryStore({ now: clock.now }),
    ...overrides,
  });
  return { app, upstream, clock, metrics };
}

const customer = (id: string, properties: Record<string, string> = { region: 'EU' }) =>
  session({ org_id: id, org_name: `Org ${id}`, embed_properties: properties });
const getToken = (app: ReturnType<typeof setup>['app'], jwt: string) => call(app, '/embed/token', tokenRequest(jwt));
const counted = async (metrics: ReturnType<typeof createBffMetrics>, name: string) =>
  Object.fromEntries((await metrics.registry.getSingleMetric(`embed_bff_${name}`)!.get()).values.map((v) => [String(v.labels.priority ?? ''), v.value]));

afterAll(() => expect(findLeaks()).toEqual([]));

describe('the vendor budget (upstreamRatePerMinute)', () => {
  // 60 a minute, a burst of 3, visitors wait at most 2 s: three at once, two more by waiting, then 503.
  const budget = { upstreamRatePerMinute: 60, upstreamBurst: 3, upstreamMaxWaitMs: 2_000 };

  it('admits a burst, makes the next visitors wait their slot, then answers 503 with Retry-After; the vendor never sees more', async () => {
    // The clock stands still: every visitor asks at the same instant.
    const { app, upstream, metrics } = setup({ ...budget, sleep: () => Promise.resolve() });
    const jwts = await Promise.all(Array.from({ length: 7 }, (_, i) => customer(`c${i}`)));
    const answers = [];
    for (const jwt of jwts) answers.push(await getToken(app, jwt));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 503, 503]);
    expect(answers[5]!.headers.get('retry-after')).toBe('1');
    expect(answers[5]!.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
    expect(upstream.calls).toEqual({ getOrCreate: 5, update: 0, rotate: 0 });
    expect(await counted(metrics, 'budget_used_total')).toEqual({ 'first-token': 5 });
    expect(await counted(metrics, 'budget_refused_total')).toEqual({ 'first-token': 2 });
  });

  it('defers a revalidation while the budget is tight and serves the cached token; revalidates once there is room', async () => {
    const { app, upstream, clock, metrics } = setup({ ...budget, revalidateAfterSeconds: 60 });
    const cached = await customer('cached');
    const token = (await getToken(app, cached)).body as { token: string };
    clock.advance(61_000);
    // Empty the bucket with other first visits.
    for (let i = 0; i < 3; i++) await getToken(app, await customer(`new-${i}`));
    const before = upstream.calls.getOrCreate;
    const served = await getToken(app, cached);
    expect(served.status).toBe(200);
    expect((served.body as { token: string }).token).toBe(token.token);
    expect(upstream.calls.getOrCreate).toBe(before);
    expect(await counted(metrics, 'budget_deferred_total')).toEqual({ revalidation: 1 });
    clock.advance(10_000);
    await getToken(app, cached);
    expect(upstream.calls.getOrCreate).toBe(before + 1);
  });

  it('a vendor 429 empties the budget for its Retry-After: the next visitor gets 503, not a call', async () => {
    const { app, upstream, clock } = setup({ ...budget, upstreamMaxWaitMs: 1_000 });
    upstream.failNext.getOrCreate = [new UserGroupRateLimitedError('vendor limit', { retryAfterMs: 30_000 })];
    expect((await getToken(app, await customer('a'))).status).toBe(429);
    const refused = await getToken(app, await customer('b'));
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(29);
    expect(upstream.calls.getOrCreate).toBe(1);
    clock.advance(30_000);
    expect((await getToken(app, await customer('b'))).status).toBe(200);
  });

  it('is off by default in the library', async () => {
    const { app, upstream } = setup();
    for (let i = 0; i < 30; i++) expect((await getToken(app, await customer(`free-${i}`))).status).toBe(200);
    expect(upstream.calls.getOrCreate).toBe(30);
  });
});

describe('the environment with expectEnvironment: one vendor call per new customer', () => {
  it('learns the account environment once (the probe group: one get-or-create, one update), then creates every customer with get-or-create alone', async () => {
    const { app, upstream } = setup({ expectEnvironment: 'Customer' });
    const jwts = await Promise.all(Array.from({ length: 10 }, (_, i) => customer(`env-${i}`)));
    const answers = await Promise.all(jwts.map((jwt) => getToken(app, jwt)));
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(200));
    expect(upstream.calls).toEqual({ getOrCreate: 11, update: 1, rotate: 0 });
    expect(upstream.groups.has('embedded-dashboard-environment-probe')).toBe(true);
  });

  it('shares what it learned through the store: a second BFF on the same store makes no update at all', async () => {
    const store = createMemoryStore();
    const first = setup({ expectEnvironment: 'Customer', store });
    await getToken(first.app, await customer('one'));
    const second = setup({ expectEnvironment: 'Customer', store });
    second.upstream.groups.set('one', first.upstream.groups.get('one')!);
    await getToken(second.app, await customer('two'));
    expect(second.upstream.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
  });

  it('still refuses a vendor of the other environment, and refuses every customer once an update or rotation says the environment changed', async () => {
    const wrong = setup({ expectEnvironment: 'Customer' });
    wrong.upstream.environment = 'Testing';
    expect((await getToken(wrong.app, await customer('x'))).status).toBe(502);
    expect((await getToken(wrong.app, await customer('y'))).status).toBe(502);

    const { app, upstream } = setup({ expectEnvironment: 'Customer' });
    expect((await getToken(app, await customer('a'))).status).toBe(200);
    // The key now serves Testing (a misconfiguration); a drift update states it.
    upstream.environment = 'Testing';
    expect((await getToken(app, await customer('a', { region: 'US' }))).status).toBe(502);
    expect((await getToken(app, await customer('brand-new'))).status).toBe(502);
  });
});
