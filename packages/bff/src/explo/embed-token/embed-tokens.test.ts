import { decodeProtectedHeader, jwtDecrypt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { isCompactJwe, isTokenResponse } from '@embedded-dashboard/protocol';
import { createBffApp } from '../../app.js';
import type { BffAppOptions } from '../../options.js';
import { acme, API_TOKEN, call, captureLogs, emitted, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../../test/support/fixtures.js';

const KEY = 'LEAKCHECK-embed-secret-32-bytes!';
const ORIGIN = 'http://localhost';
const NOW = Date.now();

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  const app = createBffApp({
    upstream,
    session: { secret: SESSION_SECRET },
    logger: logs.logger,
    secrets: [API_TOKEN],
    embedToken: { keyId: 'key-1', key: KEY },
    tokenTtlSeconds: 600,
    now: () => NOW,
    ...overrides,
  });
  const ask = async (body: unknown, headers: Record<string, string> = { origin: ORIGIN }, path = '/embed/token') =>
    call(app, `${ORIGIN}${path}`, tokenRequest(await session(), body, headers));
  return { app, upstream, logs, ask };
}

const decrypt = async (token: string) => (await jwtDecrypt(token, new TextEncoder().encode(KEY), { currentDate: new Date(NOW) })).payload;
/** Every user group (customer) token the fake vendor handed the BFF. */
const customerTokens = (upstream: FakeUpstream) => [...upstream.groups.values()].map((g) => g.token);

afterAll(() => {
  expect(findLeaks()).toEqual([]);
  expect(emitted.filter((line) => line.includes(KEY))).toEqual([]);
});

describe('embed tokens: POST /embed/token with embedToken', () => {
  it('answers a TokenResponse whose token is a JWE that the secret decrypts to exactly cst, dsh, exp, iss', async () => {
    const { ask } = setup();
    const res = await ask({ dashboard: 'sales-overview' });
    expect(res.status).toBe(200);
    expect(isTokenResponse(res.body)).toBe(true);
    const { token, expiresAt, serverTime } = res.body as { token: string; expiresAt: number; serverTime: number };
    expect(isCompactJwe(token)).toBe(true);
    expect(decodeProtectedHeader(token)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' });
    const exp = Math.floor(NOW / 1000) + 600;
    expect(await decrypt(token)).toEqual({ cst: 'acme', dsh: 'sales-overview', exp, iss: `${ORIGIN}/` });
    expect(expiresAt).toBe(exp * 1000);
    expect(serverTime).toBe(NOW);
  });

  it('mints a new token per request, and 200 more requests of a synced customer cost no vendor call', async () => {
    const { ask, upstream } = setup({ rateLimit: false });
    const first = await ask({ dashboard: 'sales-overview' });
    expect(upstream.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
    const tokens = new Set([(first.body as { token: string }).token]);
    for (let i = 0; i < 200; i++) tokens.add(((await ask({ dashboard: i % 2 ? 'sales-overview' : 'support-metrics' })).body as { token: string }).token);
    expect(tokens.size).toBe(201);
    expect(upstream.calls).toEqual({ getOrCreate: 1, update: 0, rotate: 0 });
  });

  it('renews with a new mint on /token/rotate, never a vendor rotation', async () => {
    const { ask, upstream } = setup();
    const held = ((await ask({ dashboard: 'sales-overview' })).body as { token: string }).token;
    const renewed = await ask({ token: held, dashboard: 'sales-overview' }, { origin: ORIGIN }, '/embed/token/rotate');
    expect(renewed.status).toBe(200);
    const token = (renewed.body as { token: string }).token;
    expect(token).not.toBe(held);
    expect(await decrypt(token)).toMatchObject({ cst: 'acme', dsh: 'sales-overview' });
    expect(upstream.calls.rotate).toBe(0);
  });

  it('keeps the customer token in the BFF: in no body, claim, header or log line', async () => {
    const { ask, upstream, logs } = setup();
    const seen: string[] = [];
    for (const body of [{ dashboard: 'sales-overview' }, { dashboard: 'bad id' }, {}]) {
      const res = await ask(body);
      seen.push(res.text, JSON.stringify([...res.headers]));
      if (res.status === 200) seen.push(JSON.stringify(await decrypt((res.body as { token: string }).token)));
    }
    const customerToken = customerTokens(upstream)[0]!;
    expect(customerToken).toMatch(/^ugt-/);
    expect(seen.join('\n')).not.toContain(customerToken);
    expect(logs.lines.join('\n')).not.toContain(customerToken);
  });

  it("takes iss from the page's Origin (an allowed cross origin too), and mints none for a caller that is no browser", async () => {
    const { ask } = setup({ allowedOrigins: ['https://app.example'] });
    const cross = await ask({ dashboard: 'sales-overview' }, { origin: 'https://app.example' });
    expect(await decrypt((cross.body as { token: string }).token)).toMatchObject({ iss: 'https://app.example/' });
    const server = await ask({ dashboard: 'sales-overview' }, {});
    expect(await decrypt((server.body as { token: string }).token)).not.toHaveProperty('iss');
    expect((await ask({ dashboard: 'sales-overview' }, { origin: 'https://evil.example' })).status).toBe(403);
  });

  it('limits dashboards to embedToken.dashboards: any other is 403 forbidden, before any vendor call', async () => {
    const { ask, upstream } = setup({ embedToken: { keyId: 'key-1', key: KEY, dashboards: ['sales-overview'] } });
    const refused = await ask({ dashboard: 'support-metrics' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'forbidden', message: 'dashboard "support-metrics" is not one this BFF embeds', retryable: false } });
    expect(upstream.calls.getOrCreate).toBe(0);
    expect((await ask({ dashboard: 'sales-overview' })).status).toBe(200);
    expect((await ask({ token: 't', dashboard: 'support-metrics' }, { origin: ORIGIN }, '/embed/token/rotate')).status).toBe(403);
  });

  it.each([
    ['no dashboard', {}, /must name the dashboard/],
    ['a numeric dashboard', { dashboard: 7 }, /dashboard id/],
    ['an empty dashboard', { dashboard: '' }, /dashboard id/],
    ['a dashboard with a slash', { dashboard: '../admin' }, /dashboard id/],
    ['a dashboard with markup', { dashboard: '<script>' }, /dashboard id/],
    ['a 129-character dashboard', { dashboard: 'd'.repeat(129) }, /dashboard id/],
    ['a dashboard object', { dashboard: { id: 'x' } }, /dashboard id/],
    ['a field naming the customer', { dashboard: 'sales-overview', cst: 'globex' }, /takes only "dashboard"/],
  ])('answers %s with 400, never 500, and no vendor call', async (_, body, message) => {
    const { ask, upstream } = setup();
    const res = await ask(body);
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'bad_request', message: expect.stringMatching(message) } });
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it('answers 401 before anything else for a caller without a session', async () => {
    const { app } = setup();
    const res = await call(app, `${ORIGIN}/embed/token`, tokenRequest(undefined, { dashboard: 'sales-overview' }, { origin: ORIGIN }));
    expect(res.status).toBe(401);
  });

  it('redacts the key from log lines like the API token (an integrator logger included)', async () => {
    const upstream = new FakeUpstream();
    upstream.failNext.getOrCreate = [new Error(`vendor echoed ${KEY} and ${API_TOKEN}`)];
    const lines: string[] = [];
    const app = createBffApp({
      upstream,
      session: { secret: SESSION_SECRET },
      secrets: [API_TOKEN],
      embedToken: { keyId: 'key-1', key: KEY },
      logger: {
        info: (m, f) => lines.push(JSON.stringify([m, f])),
        warn: (m, f) => lines.push(JSON.stringify([m, f])),
        error: (m, f) => lines.push(JSON.stringify([m, f])),
      },
    });
    const res = await call(app, `${ORIGIN}/embed/token`, tokenRequest(await session(acme), { dashboard: 'sales-overview' }, { origin: ORIGIN }));
    expect(res.status).toBe(500);
    expect(lines.join('\n')).toContain('[redacted]');
    expect(lines.join('\n')).not.toContain(KEY);
    expect(res.text).not.toContain(KEY);
  });

  it('still answers the customer token without embedToken, and takes a dashboard in the body there too', async () => {
    const upstream = new FakeUpstream();
    const app = createBffApp({ upstream, session: { secret: SESSION_SECRET }, logger: captureLogs().logger });
    const res = await call(app, `${ORIGIN}/embed/token`, tokenRequest(await session(), { dashboard: 'sales-overview' }, { origin: ORIGIN }));
    expect((res.body as { token: string }).token).toBe(customerTokens(upstream)[0]);
    expect((await call(app, `${ORIGIN}/embed/token`, tokenRequest(await session(), { dashboard: 'a b' }, { origin: ORIGIN }))).status).toBe(400);
  });

  it('refuses chart with a 400 that says what to configure where the BFF mints (no claim for a chart is documented), and with customer tokens', async () => {
    const { ask, upstream } = setup();
    for (const path of ['/embed/token', '/embed/token/rotate']) {
      const res = await ask(
        { dashboard: 'sales-overview', chart: 'revenue-by-month', ...(path.endsWith('rotate') && { token: 't' }) },
        { origin: ORIGIN },
        path,
      );
      expect(res.status).toBe(400);
      expect((res.body as { error: { message: string } }).error.message).toMatch(/EMBED_JWT_MINT=vendor/);
    }
    expect(upstream.calls.getOrCreate).toBe(0);
    const customerTokensApp = createBffApp({ upstream, session: { secret: SESSION_SECRET }, logger: captureLogs().logger });
    const res = await call(customerTokensApp, `${ORIGIN}/embed/token`, tokenRequest(await session(), { chart: 'revenue-by-month' }, { origin: ORIGIN }));
    expect(res.status).toBe(400);
    expect((res.body as { error: { message: string } }).error.message).toMatch(/needs embed tokens minted by the vendor/);
  });

  it('adds des to the tokens it mints when embedToken.disableEditableSectionEditing is set, and none when not', async () => {
    for (const des of [true, false]) {
      const { ask } = setup({ embedToken: { keyId: 'key-1', key: KEY, disableEditableSectionEditing: des } });
      expect(await decrypt(((await ask({ dashboard: 'sales-overview' })).body as { token: string }).token)).toMatchObject({ des });
    }
    const { ask } = setup();
    expect(await decrypt(((await ask({ dashboard: 'sales-overview' })).body as { token: string }).token)).not.toHaveProperty('des');
  });
});

describe('embedToken options', () => {
  const upstream = new FakeUpstream();
  const make =
    (embedToken: unknown, extra: Partial<BffAppOptions> = {}) =>
    () =>
      createBffApp({ upstream, session: { secret: SESSION_SECRET }, embedToken: embedToken as never, logger: captureLogs().logger, ...extra });

  it.each([
    ['a key of 31 bytes', { keyId: 'k', key: 'x'.repeat(31) }, /embedToken.key: .*32 bytes.*31/],
    ['a key of 32 characters but 33 bytes', { keyId: 'k', key: `é${'x'.repeat(31)}` }, /32 bytes.*33/],
    ['no key to mint locally', { keyId: 'k' }, /embedToken.key is required/],
    ['a keyId with a space', { keyId: 'key 1', key: KEY }, /embedToken.keyId/],
    ['an empty keyId', { keyId: '', key: KEY }, /embedToken.keyId/],
    ['a keyId with a colon', { keyId: 'a:b', key: KEY }, /embedToken.keyId/],
    ['a dashboard that is no id', { keyId: 'k', key: KEY, dashboards: ['sales overview'] }, /embedToken.dashboards/],
    ['an empty dashboard list', { keyId: 'k', key: KEY, dashboards: [] }, /embedToken.dashboards/],
    ['an unknown mint', { keyId: 'k', key: KEY, mint: 'remote' }, /embedToken.mint/],
    ['des as text', { keyId: 'k', key: KEY, disableEditableSectionEditing: 'true' }, /embedToken.disableEditableSectionEditing must be a boolean/],
    ['des as a number', { keyId: 'k', key: KEY, disableEditableSectionEditing: 1 }, /embedToken.disableEditableSectionEditing must be a boolean/],
    ['no object', 'key-1', /embedToken must be an object/],
  ])('refuses %s at start with a TypeError naming the option, never the key', (_, embedToken, message) => {
    expect(make(embedToken)).toThrow(message);
    try {
      make(embedToken)();
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).not.toContain(KEY);
    }
  });

  it('refuses a token TTL of 0 with embed tokens: an embed token always expires', () => {
    expect(make({ keyId: 'k', key: KEY }, { tokenTtlSeconds: 0 })).toThrow(/tokenTtlSeconds must be above 0 with embedToken/);
  });
});
