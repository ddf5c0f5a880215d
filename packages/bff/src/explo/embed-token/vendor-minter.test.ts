import { jwtDecrypt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { UserGroupApiError, UserGroupNetworkError } from '@embedded-dashboard/client';
import { createBffApp } from '../../app.js';
import type { BffAppOptions } from '../../options.js';
import { createMemoryStore } from '../../store/memory.js';
import { FakeJwtVendor } from '../../../test/support/fake-jwt-vendor.js';
import {
  acme,
  API_TOKEN,
  call,
  captureLogs,
  deferred,
  emitted,
  FakeUpstream,
  findLeaks,
  session,
  SESSION_SECRET,
  tokenRequest,
} from '../../../test/support/fixtures.js';

const KEY = 'LEAKCHECK-vendor-embed-key-32byt';
const KEY_BYTES = new TextEncoder().encode(KEY);
const ORIGIN = 'http://localhost';
const TTL = 600;
/** Whole seconds, so the vendor's `exp` and the BFF's `expiresAt` are the same instant; the sessions are signed with the real clock. */
const START = Math.floor(Date.now() / 1000) * 1000;

function setup(overrides: Partial<BffAppOptions> = {}) {
  let clock = START;
  const vendor = new FakeJwtVendor(KEY_BYTES, () => clock);
  const logs = captureLogs();
  const options = (extra: Partial<BffAppOptions> = {}): BffAppOptions => ({
    upstream: vendor,
    session: { secret: SESSION_SECRET },
    logger: logs.logger,
    secrets: [API_TOKEN],
    embedToken: { keyId: 'key-1', mint: 'vendor' },
    tokenTtlSeconds: TTL,
    rateLimit: false,
    now: () => clock,
    ...overrides,
    ...extra,
  });
  const app = createBffApp(options());
  const ask = async (body: unknown, { origin = ORIGIN, path = '/embed/token', on = app, claims = acme } = {}) =>
    call(on, `${ORIGIN}${path}`, tokenRequest(await session(claims), body, { origin }));
  const tokenOf = (res: { body: unknown }) => (res.body as { token: string }).token;
  return { app, vendor, logs, ask, tokenOf, options, advance: (ms: number) => (clock += ms), now: () => clock };
}

const decrypt = async (token: string, at: number) => (await jwtDecrypt(token, KEY_BYTES, { currentDate: new Date(at) })).payload;

afterAll(() => {
  expect(findLeaks()).toEqual([]);
  expect(emitted.filter((line) => line.includes(KEY))).toEqual([]);
});

describe("embed tokens minted by the vendor (embedToken.mint: 'vendor', generate_jwt)", () => {
  it("answers the vendor's token for the session's customer, the dashboard and the page's origin, asked for the token TTL", async () => {
    const { ask, vendor, tokenOf } = setup();
    const res = await ask({ dashboard: 'sales-overview' });
    expect(res.status).toBe(200);
    expect(vendor.jwtCalls).toEqual([
      { provided_id: 'acme', embed_id: 'sales-overview', key_id: 'key-1', expiration: `PT${TTL}S`, embed_origin: `${ORIGIN}/` },
    ]);
    expect(res.body).toEqual({ token: tokenOf(res), expiresAt: START + TTL * 1000, serverTime: START });
    expect(await decrypt(tokenOf(res), START)).toEqual({ cst: 'acme', dsh: 'sales-overview', exp: START / 1000 + TTL, iss: `${ORIGIN}/` });
    // The customer is synced as in every mode; its token is never what the browser gets.
    expect(vendor.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
    expect(tokenOf(res)).not.toBe([...vendor.groups.values()][0]!.token);
  });

  it('shares one token per customer, dashboard and origin among all its sessions: 200 more page views cost no vendor call', async () => {
    const { ask, vendor, tokenOf, advance } = setup({ allowedOrigins: ['https://app.example'] });
    const first = tokenOf(await ask({ dashboard: 'sales-overview' }));
    const other = tokenOf(await ask({ dashboard: 'support-metrics' }));
    const elsewhere = tokenOf(await ask({ dashboard: 'sales-overview' }, { origin: 'https://app.example' }));
    const globex = tokenOf(await ask({ dashboard: 'sales-overview' }, { claims: { ...acme, org_id: 'globex', org_name: 'Globex' } }));
    expect(new Set([first, other, elsewhere, globex]).size).toBe(4);
    expect(vendor.jwtCalls.map((c) => [c.provided_id, c.embed_id, c.embed_origin])).toEqual([
      ['acme', 'sales-overview', `${ORIGIN}/`],
      ['acme', 'support-metrics', `${ORIGIN}/`],
      ['acme', 'sales-overview', 'https://app.example/'],
      ['globex', 'sales-overview', `${ORIGIN}/`],
    ]);
    const before = { jwt: vendor.jwtCalls.length, ...vendor.calls };
    for (let i = 0; i < 200; i++) {
      advance(1000);
      const res = await ask({ dashboard: i % 2 ? 'support-metrics' : 'sales-overview' });
      expect(tokenOf(res)).toBe(i % 2 ? other : first);
      expect((res.body as { expiresAt: number }).expiresAt).toBe(START + TTL * 1000);
    }
    expect({ jwt: vendor.jwtCalls.length, ...vendor.calls }).toEqual(before);
  });

  it('mints the next one once near expiry (a quarter of the lifetime left), one call for a burst of page views', async () => {
    const { ask, vendor, tokenOf, advance } = setup();
    const first = tokenOf(await ask({ dashboard: 'sales-overview' }));
    advance(((TTL * 3) / 4) * 1000 - 1000); // 151 s left: still handed out
    expect(tokenOf(await ask({ dashboard: 'sales-overview' }))).toBe(first);
    expect(vendor.jwtCalls).toHaveLength(1);
    advance(2000); // 149 s left
    const gate = deferred();
    vendor.jwtGate = gate.promise;
    const burst = Array.from({ length: 20 }, () => ask({ dashboard: 'sales-overview' }));
    await new Promise((resolve) => setTimeout(resolve, 50));
    gate.resolve();
    const answers = await Promise.all(burst);
    expect(new Set(answers.map(tokenOf)).size).toBe(1);
    expect(tokenOf(answers[0]!)).not.toBe(first);
    expect(vendor.jwtCalls).toHaveLength(2);
  });

  it('renews on /token/rotate: the current token is replaced once, a stale holder gets the current one, a second refusal within the interval is 429', async () => {
    const { ask, vendor, tokenOf, advance } = setup();
    const rotate = (token: string) => ask({ token, dashboard: 'sales-overview' }, { path: '/embed/token/rotate' });
    const first = tokenOf(await ask({ dashboard: 'sales-overview' }));
    advance(20_000);
    const renewed = await rotate(first);
    expect(renewed.status).toBe(200);
    const second = tokenOf(renewed);
    expect(second).not.toBe(first);
    expect(vendor.jwtCalls).toHaveLength(2);
    expect(vendor.calls.rotate).toBe(0);
    // Another tab still holding the first token: the current one, no call.
    expect(tokenOf(await rotate(first))).toBe(second);
    expect(vendor.jwtCalls).toHaveLength(2);
    // The frame refuses the new token at once: inside the minimum interval (10 s) that is a 429.
    const throttled = await rotate(second);
    expect(throttled.status).toBe(429);
    expect(throttled.headers.get('retry-after')).toBe('10');
    expect(throttled.body).toMatchObject({ error: { code: 'rate_limited', retryable: true } });
    advance(10_000);
    expect(tokenOf(await rotate(second))).not.toBe(second);
    expect(vendor.jwtCalls).toHaveLength(3);
  });

  it('shares the token between BFF processes on one store (the fleet): a second process mints nothing', async () => {
    const store = createMemoryStore();
    const { ask, vendor, tokenOf, options } = setup({ store });
    const second = createBffApp(options());
    const first = tokenOf(await ask({ dashboard: 'sales-overview' }));
    expect(tokenOf(await ask({ dashboard: 'sales-overview' }, { on: second }))).toBe(first);
    expect(vendor.jwtCalls).toHaveLength(1);
  });

  it('serves the stored token while the vendor fails, until it expires; without one the failure is a 502/503, never a 401', async () => {
    const { ask, vendor, tokenOf, advance, logs } = setup();
    const first = tokenOf(await ask({ dashboard: 'sales-overview' }));
    advance((TTL - 100) * 1000); // near expiry, not expired
    vendor.failJwt = [new UserGroupNetworkError('connection refused')];
    const meanwhile = await ask({ dashboard: 'sales-overview' });
    expect(meanwhile.status).toBe(200);
    expect(tokenOf(meanwhile)).toBe(first);
    expect(logs.lines.join('\n')).toMatch(/serving the stored one/);
    advance(200_000); // expired now
    vendor.failJwt = [new UserGroupNetworkError('connection refused')];
    const down = await ask({ dashboard: 'sales-overview' });
    expect(down.status).toBe(503);
    expect(down.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
    vendor.failJwt = [new UserGroupApiError('http_status', 'vendor said 500', { status: 500 })];
    expect((await ask({ dashboard: 'support-metrics' })).status).toBe(502);
  });

  it('refuses what the vendor answers when it is not an embed token (502), and stores nothing', async () => {
    const { ask, vendor } = setup();
    vendor.answerJwt = 'ugt-customer-token-not-a-jwe';
    const res = await ask({ dashboard: 'sales-overview' });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
    expect(res.text).not.toContain('ugt-customer');
    vendor.answerJwt = undefined;
    expect((await ask({ dashboard: 'sales-overview' })).status).toBe(200);
    expect(vendor.jwtCalls).toHaveLength(2);
  });

  it('spends the vendor budget: a mint the budget cannot admit is 503 with Retry-After, no vendor call', async () => {
    const { ask, vendor } = setup({ upstreamRatePerMinute: 2, upstreamBurst: 2 });
    expect((await ask({ dashboard: 'sales-overview' })).status).toBe(200); // get-or-create + generate_jwt
    const refused = await ask({ dashboard: 'support-metrics' });
    expect(refused.status).toBe(503);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(vendor.jwtCalls).toHaveLength(1);
  });

  it('keeps dashboards outside embedToken.dashboards and malformed ones away from the vendor', async () => {
    const { ask, vendor } = setup({ embedToken: { keyId: 'key-1', mint: 'vendor', dashboards: ['sales-overview'] } });
    expect((await ask({ dashboard: 'support-metrics' })).status).toBe(403);
    expect((await ask({ dashboard: '../x' })).status).toBe(400);
    expect((await ask({ token: 't', dashboard: 'payroll' }, { path: '/embed/token/rotate' })).status).toBe(403);
    expect(vendor.jwtCalls).toEqual([]);
  });

  it('passes chart as chart_id; a single-chart token is kept per chart, never served for the whole dashboard or another chart', async () => {
    const { ask, vendor, tokenOf, options, advance } = setup();
    const chartA = await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' });
    expect(chartA.status).toBe(200);
    expect(vendor.jwtCalls.at(-1)).toMatchObject({ embed_id: 'sales-overview', chart_id: 'revenue-by-month' });
    expect(await decrypt(tokenOf(chartA), START)).toMatchObject({ dsh: 'sales-overview', chart: 'revenue-by-month' });
    const whole = tokenOf(await ask({ dashboard: 'sales-overview' }));
    expect(vendor.jwtCalls.at(-1)).not.toHaveProperty('chart_id');
    const chartB = tokenOf(await ask({ dashboard: 'sales-overview', chart: 'orders-by-month' }));
    expect(new Set([tokenOf(chartA), whole, chartB]).size).toBe(3);
    // Each is shared as before: asking again costs no call, and answers the same token.
    expect(tokenOf(await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' }))).toBe(tokenOf(chartA));
    expect(tokenOf(await ask({ dashboard: 'sales-overview' }))).toBe(whole);
    expect(vendor.jwtCalls).toHaveLength(3);
    // A renewal keeps the chart.
    advance(120_000);
    const renewed = await ask({ token: tokenOf(chartA), dashboard: 'sales-overview', chart: 'revenue-by-month' }, { path: '/embed/token/rotate' });
    expect(renewed.status).toBe(200);
    expect(vendor.jwtCalls.at(-1)).toMatchObject({ chart_id: 'revenue-by-month' });
    // Another process on the same store with editable sections locked: its tokens are not those.
    const store = createMemoryStore();
    const open = createBffApp(options({ store }));
    const locked = createBffApp(options({ store, embedToken: { keyId: 'key-1', mint: 'vendor', disableEditableSectionEditing: true } }));
    const openToken = tokenOf(await ask({ dashboard: 'support-metrics' }, { on: open }));
    const lockedToken = tokenOf(await ask({ dashboard: 'support-metrics' }, { on: locked }));
    expect(lockedToken).not.toBe(openToken);
    expect(vendor.jwtCalls.at(-1)).toMatchObject({ embed_id: 'support-metrics', disable_editable_section_editing: true });
    expect(await decrypt(lockedToken, START)).toMatchObject({ des: true });
  });

  it.each([
    ['oversized', { dashboard: 'sales-overview', chart: 'c'.repeat(129) }, /"chart" must be a chart id/],
    ['a number', { dashboard: 'sales-overview', chart: 42 }, /"chart" must be a chart id/],
    ['a list', { dashboard: 'sales-overview', chart: ['a'] }, /"chart" must be a chart id/],
    ['null', { dashboard: 'sales-overview', chart: null }, /"chart" must be a chart id/],
    ['not an id', { dashboard: 'sales-overview', chart: '../x' }, /"chart" must be a chart id/],
    ['markup', { dashboard: 'sales-overview', chart: '<img src=x>' }, /"chart" must be a chart id/],
    ['a prototype key', JSON.parse('{"dashboard":"sales-overview","__proto__":{"chart":"x"}}') as unknown, /takes only "dashboard" and "chart"/],
    ['an unknown field', { dashboard: 'sales-overview', chart: 'a', chart_id: 'a' }, /takes only "dashboard" and "chart"/],
    ['no dashboard', { chart: 'revenue-by-month' }, /must name the dashboard/],
  ])('refuses a chart that is %s with 400 and no vendor call', async (_name, body, message) => {
    const { ask, vendor } = setup();
    const res = await ask(body);
    expect(res.status).toBe(400);
    expect((res.body as { error: { message: string } }).error.message).toMatch(message);
    expect(vendor.jwtCalls).toEqual([]);
  });

  it('on the chart path, a vendor that refuses is 502, one that is down 503, one that answers no embed token 502: never a 401, never a whole-dashboard token', async () => {
    const { ask, vendor, tokenOf } = setup();
    const whole = tokenOf(await ask({ dashboard: 'sales-overview' }));
    vendor.failJwt = [new UserGroupApiError('http_status', 'chart embedding is not enabled', { status: 400 })];
    expect((await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' })).status).toBe(502);
    vendor.failJwt = [new UserGroupNetworkError('connection refused')];
    expect((await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' })).status).toBe(503);
    vendor.answerJwt = 'not-a-jwe';
    const wrong = await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' });
    expect(wrong.status).toBe(502);
    expect(JSON.stringify(wrong.body)).not.toContain(whole);
    vendor.answerJwt = undefined;
    const right = await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' });
    expect(right.status).toBe(200);
    expect(tokenOf(right)).not.toBe(whole);
  });

  it('on the chart path, a vendor that never answers ends in 504 within the request deadline, and the next request mints', async () => {
    const { ask, vendor } = setup();
    const gate = deferred();
    vendor.jwtGate = gate.promise;
    const hung = await ask({ dashboard: 'sales-overview', chart: 'revenue-by-month' });
    expect([503, 504]).toContain(hung.status);
    expect(hung.body).toMatchObject({ error: { code: expect.stringMatching(/^upstream_/) } });
    gate.resolve();
  });

  it.each([
    ['an upstream speaking /api/user', () => Object.assign(new FakeJwtVendor(KEY_BYTES, Date.now), { api: 'user-group-service' as const })],
    ['an upstream without generateJwt', () => new FakeUpstream()],
  ])('is refused at start with %s', (_, upstream) => {
    expect(() => createBffApp({ upstream: upstream(), session: { secret: SESSION_SECRET }, embedToken: { keyId: 'k', mint: 'vendor' } })).toThrow(
      /embedToken.mint "vendor" needs an upstream with generateJwt/,
    );
  });

  it('takes a key with mint vendor only when it is a valid one (checked, redacted, unused)', () => {
    const make = (key: string) => () =>
      createBffApp({ upstream: new FakeJwtVendor(KEY_BYTES, Date.now), session: { secret: SESSION_SECRET }, embedToken: { keyId: 'k', key, mint: 'vendor' } });
    expect(make(KEY)).not.toThrow();
    expect(make('short')).toThrow(/embedToken.key: .*32 bytes/);
  });
});
