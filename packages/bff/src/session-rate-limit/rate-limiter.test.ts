import { afterAll, describe, expect, it } from 'vitest';
import { renewalDelayMs, type TokenResponse } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import { metabaseVendor } from '../metabase/metabase-vendor.js';
import type { BffAppOptions } from '../options.js';
import { createMemoryStore } from '../store/memory.js';
import { supersetVendor } from '../superset/superset-vendor.js';
import { API_TOKEN, call, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { ROTATE_HOLDERS_PER_SESSION } from './rate-limiter.js';

// The per-session rotate limit against the element's schedule (the protocol's `renewalDelayMs`),
// through the public surface: an app, a fake clock shared by the BFF and its memory store.

const S = 1000;
const EMBED_KEY = 'LEAKCHECK-embed-secret-32-bytes!';
const METABASE_SECRET = '0123456789abcdef'.repeat(4);

function setup(overrides: Partial<BffAppOptions> = {}) {
  let t = Date.now();
  const clock = { now: () => t, set: (at: number) => (t = Math.max(t, at)) };
  const app = createBffApp({
    session: { secret: SESSION_SECRET },
    logger: captureLogs().logger,
    secrets: [API_TOKEN],
    store: createMemoryStore({ now: clock.now }),
    now: clock.now,
    clock: clock.now,
    sleep: () => Promise.resolve(),
    ...overrides,
  });
  return { app, clock };
}

/** Explo's embed tokens of `ttlSeconds`, minted in the BFF (no vendor call per renewal). */
const exploEmbed = (ttlSeconds: number): Partial<BffAppOptions> => ({
  upstream: new FakeUpstream(),
  embedToken: { keyId: 'key-1', key: EMBED_KEY },
  tokenTtlSeconds: ttlSeconds,
});

type App = ReturnType<typeof setup>['app'];

/**
 * Holders of the given scopes in one session, each renewing as the element does: after
 * `renewalDelayMs` of what its answer left, or after `Retry-After` when refused. The status of
 * every renewal until `forMs` has passed.
 */
async function renewOnSchedule(app: App, clock: ReturnType<typeof setup>['clock'], scopes: object[], forMs: number) {
  const jwt = await session();
  const end = clock.now() + forMs;
  const holders: { scope: object; token: string; dueAt: number }[] = [];
  const dueAfter = (answer: TokenResponse) => clock.now() + renewalDelayMs(answer.expiresAt === null ? null : answer.expiresAt - answer.serverTime);
  for (const scope of scopes) {
    const res = await call(app, '/embed/token', tokenRequest(jwt, scope));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const answer = res.body as TokenResponse;
    holders.push({ scope, token: answer.token, dueAt: dueAfter(answer) });
  }
  const statuses: number[] = [];
  for (;;) {
    const holder = holders.reduce((soonest, h) => (h.dueAt < soonest.dueAt ? h : soonest));
    if (holder.dueAt > end) return statuses;
    clock.set(holder.dueAt);
    const res = await call(app, '/embed/token/rotate', tokenRequest(jwt, { ...holder.scope, token: holder.token }));
    statuses.push(res.status);
    if (res.status === 200) {
      const answer = res.body as TokenResponse;
      holder.token = answer.token;
      holder.dueAt = dueAfter(answer);
    } else holder.dueAt = clock.now() + Number(res.headers.get('retry-after')) * S;
  }
}

const threeDashboards = [{ dashboard: 'sales-overview' }, { dashboard: 'support-metrics' }, { dashboard: 'churn' }];

afterAll(() => expect(findLeaks()).toEqual([]));

describe('the default rotate limit follows the token lifetime', () => {
  it('refuses none of the renewals of 3 holders of distinct scopes in one session, 15 s tokens, for 3 minutes', async () => {
    const { app, clock } = setup(exploEmbed(15));
    const statuses = await renewOnSchedule(app, clock, threeDashboards, 180 * S);
    // Each holder renews every 10 s: 18 renewals a minute, more than the former fixed 12.
    expect(statuses.length).toBeGreaterThanOrEqual(3 * 17);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it('refuses them with the former 12 a minute, given as the rule: a rule given is kept, never raised', async () => {
    const { app, clock } = setup({ ...exploEmbed(15), rateLimit: { rotate: { limit: 12, windowSeconds: 60 } } });
    const statuses = await renewOnSchedule(app, clock, threeDashboards, 180 * S);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThan(0);
    // The same holders renew more than 12 times a minute: one window of the given rule is full.
    expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(12 * 4);
  });

  it('answers a flood past the derived limit (10 holders renewing 15 s tokens: 120 a minute) with 429 and Retry-After', async () => {
    const { app, clock } = setup(exploEmbed(15));
    const jwt = await session();
    const scope = { dashboard: 'sales-overview' };
    const { token } = (await call(app, '/embed/token', tokenRequest(jwt, scope))).body as TokenResponse;
    const rotate = () => call(app, '/embed/token/rotate', tokenRequest(jwt, { ...scope, token }));
    for (let i = 0; i < ROTATE_HOLDERS_PER_SESSION * 12; i++) expect((await rotate()).status, `renewal ${i + 1}`).toBe(200);
    clock.set(clock.now() + 20 * S);
    const refused = await rotate();
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining('for this session'), retryable: true } });
    expect(Number(refused.headers.get('retry-after'))).toBe(40);
    clock.set(clock.now() + 40 * S);
    expect((await rotate()).status).toBe(200);
  });

  it('keeps the former 12 a minute for long lifetimes and tokens that never expire', async () => {
    for (const overrides of [exploEmbed(3600), { upstream: new FakeUpstream(), tokenTtlSeconds: 0 }] as Partial<BffAppOptions>[]) {
      const { app } = setup(overrides);
      const jwt = await session();
      const scope = overrides.embedToken ? { dashboard: 'sales-overview' } : {};
      const { token } = (await call(app, '/embed/token', tokenRequest(jwt, scope))).body as TokenResponse;
      const answers = [];
      for (let i = 0; i < 13; i++) answers.push(await call(app, '/embed/token/rotate', tokenRequest(jwt, { ...scope, token })));
      // A customer token's own spacing refuses its holder's early renewals too (429 "moments ago"): those still count.
      const bySession = answers.map((a) => a.status === 429 && (a.body as { error: { message: string } }).error.message.includes('for this session'));
      expect(bySession, JSON.stringify(overrides.tokenTtlSeconds)).toEqual([...Array<boolean>(12).fill(false), true]);
      if (overrides.embedToken) expect(answers.slice(0, 12).map((a) => a.status)).toEqual(Array<number>(12).fill(200));
    }
  });

  it("takes a vendor's lifetime: Metabase's 30 s tokens, 3 questions and a dashboard renewed for 2 minutes, none refused", async () => {
    const vendor = metabaseVendor({ secret: METABASE_SECRET, params: { customer_id: '{org_id}' }, dashboards: [1], questions: [3, 4, 5], ttlSeconds: 30 });
    expect(vendor.tokenLifetimeSeconds).toBe(30);
    const { app, clock } = setup({ vendor });
    const statuses = await renewOnSchedule(app, clock, [{ dashboard: '1' }, { chart: '3' }, { chart: '4' }, { chart: '5' }], 120 * S);
    expect(statuses.length).toBeGreaterThanOrEqual(4 * 5);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
  });

  it("states the vendors' lifetimes: Metabase's ttlSeconds (600 by default), Superset's signed ttlSeconds, 300 s for those Superset mints", () => {
    const metabase = { secret: METABASE_SECRET, params: {}, dashboards: [1] };
    expect(metabaseVendor(metabase).tokenLifetimeSeconds).toBe(600);
    const superset = { dashboards: ['0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0'], rls: false as const };
    const guestTokenSecret = 'rate-limit-test-guest-secret-0123456789';
    expect(supersetVendor({ ...superset, guestTokenSecret, audience: 'superset', ttlSeconds: 45 }).tokenLifetimeSeconds).toBe(45);
    expect(supersetVendor({ ...superset, guestTokenSecret, audience: 'superset' }).tokenLifetimeSeconds).toBe(300);
    const client = { accountId: 'sup', signIn: () => Promise.reject(new Error('unused')), guestToken: () => Promise.reject(new Error('unused')) };
    expect(supersetVendor({ ...superset, client }).tokenLifetimeSeconds).toBe(300);
  });

  it("refuses a vendor's lifetime that is no positive number of seconds, naming the option", () => {
    const vendor = metabaseVendor({ secret: METABASE_SECRET, params: {}, dashboards: [1] });
    for (const tokenLifetimeSeconds of [0, -15, Number.NaN, Infinity, '15', null]) {
      expect(() => setup({ vendor: { ...vendor, tokenLifetimeSeconds } as unknown as typeof vendor }), String(tokenLifetimeSeconds)).toThrow(
        new TypeError('vendor.tokenLifetimeSeconds must be a positive number of seconds'),
      );
    }
  });
});
