import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt, jwtVerify } from 'jose';
import { SupersetClient } from '@embedded-dashboard/client/superset';
import { createBffApp } from '../app.js';
import { createMemoryStore } from '../store/memory.js';
import type { TokenStore } from '../store/types.js';
import { acme, call, captureLogs, emitted, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { GUEST_SECRET, startHostileSuperset, SUPERSET_PASSWORD, SUPERSET_USER, type HostileSuperset } from '../../../client/test/support/hostile-superset.js';
import { supersetVendor } from './superset-vendor.js';
import type { SupersetVendorOptions } from './options.js';

const DASHBOARD = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const OTHER = '11111111-2222-4333-8444-555555555555';
const LOCAL_SECRET = 'LEAKCHECK-local-guest-secret-0123456789abcdef';
const ada = { ...acme, sub: 'ada', given_name: 'Ada', family_name: 'Lovelace' };

const sessionOptions = { secret: SESSION_SECRET };
const post = (jwt: string, body: unknown) => tokenRequest(jwt, body);

function localApp(options: Partial<SupersetVendorOptions> = {}) {
  return createBffApp({
    session: sessionOptions,
    logger: captureLogs().logger,
    vendor: supersetVendor({ dashboards: [DASHBOARD], rls: 'customer_id = {org_id}', guestTokenSecret: LOCAL_SECRET, audience: 'superset', ...options }),
  });
}

/** What the BFF emitted never holds a vendor secret. */
const leaks = () => emitted.filter((line) => [LOCAL_SECRET, SUPERSET_PASSWORD, GUEST_SECRET].some((secret) => line.includes(secret)));
afterEach(() => expect(leaks()).toEqual([]));

describe('Superset, guest tokens signed by the BFF', () => {
  it('answers a guest token Superset would accept: its secret and audience, the session user, the one dashboard, the rendered RLS', async () => {
    const res = await call(localApp(), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    const { token, expiresAt } = res.body as { token: string; expiresAt: number };
    const { payload } = await jwtVerify(token, new TextEncoder().encode(LOCAL_SECRET), { audience: 'superset', algorithms: ['HS256'] });
    expect(payload).toMatchObject({
      type: 'guest',
      user: { username: 'ada', first_name: 'Ada', last_name: 'Lovelace' },
      resources: [{ type: 'dashboard', id: DASHBOARD }],
      rls_rules: [{ clause: "customer_id = 'acme'" }],
    });
    expect(payload.exp! - payload.iat!).toBe(300);
    expect(expiresAt).toBe(payload.exp! * 1000);
  });

  it('a hostile claim value stays one quoted literal', async () => {
    const res = await call(localApp(), '/embed/token', post(await session({ ...ada, org_id: "x' OR '1'='1" }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    expect(decodeJwt((res.body as { token: string }).token).rls_rules).toEqual([{ clause: "customer_id = 'x'' OR ''1''=''1'" }]);
  });

  it.each([
    ['a backslash', 'x\\'],
    ['a NUL', 'x\u0000'],
    ['a newline', 'x\nOR 1=1'],
  ])('a claim value with %s is 403 forbidden, no token', async (_name, orgId) => {
    const res = await call(localApp(), '/embed/token', post(await session({ ...ada, org_id: orgId }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: { code: 'forbidden' } });
    expect(res.text).not.toMatch(/eyJ/);
  });

  it('a claim the rules read that the session lacks is 403, and a non-scalar one too', async () => {
    const app = localApp({ rls: [{ clause: 'region = {region}', dataset: 7 }, { clause: 'customer_id = {org_id}' }] });
    const missing = await call(app, '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(missing.status).toBe(403);
    expect((missing.body as { error: { message: string } }).error.message).toContain('"region"');
    const nested = await call(app, '/embed/token', post(await session({ ...ada, region: { $ne: 1 } }), { dashboard: DASHBOARD }));
    expect(nested.status).toBe(403);
    const ok = await call(app, '/embed/token', post(await session({ ...ada, region: 'EU' }), { dashboard: DASHBOARD }));
    expect(decodeJwt((ok.body as { token: string }).token).rls_rules).toEqual([{ clause: "region = 'EU'", dataset: 7 }, { clause: "customer_id = 'acme'" }]);
  });

  it('rls: false says so on purpose: tokens carry no rules', async () => {
    const res = await call(localApp({ rls: false }), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(decodeJwt((res.body as { token: string }).token).rls_rules).toEqual([]);
  });

  it('refuses a dashboard not configured (403), none or a malformed one (400), a chart (400), RLS in the body (400), an oversized body (413), no session (401)', async () => {
    const app = localApp();
    const jwt = await session(ada);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: OTHER }))).status).toBe(403);
    expect((await call(app, '/embed/token', post(jwt, {}))).status).toBe(400);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD, chart: 'c1' }))).status).toBe(400);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD, rls: [{ clause: '1=1' }] }))).status).toBe(400);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: "x' OR 1=1" }))).status).toBe(400);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: 'a'.repeat(200) }))).status).toBe(400);
    expect((await call(app, '/embed/token', post(jwt, { dashboard: 'a'.repeat(5000) }))).status).toBe(413);
    expect((await call(app, '/embed/token', tokenRequest(undefined, { dashboard: DASHBOARD }))).status).toBe(401);
  });

  it('a session without the group id claim is 403; Explo claims (name, properties) are not needed', async () => {
    const app = localApp();
    expect((await call(app, '/embed/token', post(await session({ sub: 'ada' }), { dashboard: DASHBOARD }))).status).toBe(403);
    const res = await call(app, '/embed/token', post(await session({ org_id: 'acme' }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    expect(decodeJwt((res.body as { token: string }).token).user).toEqual({ username: 'embed-acme' });
  });

  it('a hostile display claim is refused, not passed on', async () => {
    const res = await call(localApp(), '/embed/token', post(await session({ ...ada, given_name: 'Ada\u0000<script>' }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(403);
  });

  it('renewal answers a new token', async () => {
    const app = localApp();
    const jwt = await session(ada);
    const first = (await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD }))).body as { token: string };
    const renewed = await call(app, '/embed/token/rotate', post(jwt, { dashboard: DASHBOARD, token: first.token }));
    expect(renewed.status).toBe(200);
  });

  it('refuses bad options at startup', () => {
    const base = { dashboards: [DASHBOARD], rls: 'customer_id = {org_id}', guestTokenSecret: LOCAL_SECRET, audience: 'superset' };
    expect(() => supersetVendor({ ...base, rls: undefined as never })).toThrow(/rls is required/);
    expect(() => supersetVendor({ ...base, rls: "c = '{org_id}'" })).toThrow(/inside quotes/);
    expect(() => supersetVendor({ ...base, rls: [] })).toThrow(/rls must be/);
    expect(() => supersetVendor({ ...base, dashboards: ['1'] })).toThrow(/UUIDs/);
    expect(() => supersetVendor({ ...base, dashboards: [] })).toThrow(/UUIDs/);
    expect(() => supersetVendor({ ...base, guestTokenSecret: 'short' })).toThrow(/32 bytes \(value not shown\)/);
    expect(() => supersetVendor({ ...base, audience: undefined })).toThrow(/audience is required/);
    expect(() => supersetVendor({ ...base, ttlSeconds: 5 })).toThrow(/ttlSeconds/);
    expect(() => supersetVendor({ ...base, guestTokenSecret: undefined })).toThrow(/exactly one/);
    expect(() => supersetVendor({ ...base, user: { username: '__proto__ x' } })).toThrow(/claim name/);
    expect(() => createBffApp({ session: sessionOptions, vendor: supersetVendor(base), embedToken: { keyId: 'k', key: 'x'.repeat(32) } })).toThrow(
      /embedToken is Explo's/,
    );
  });
});

describe('Superset, guest tokens minted by Superset', () => {
  let superset: HostileSuperset;
  beforeAll(async () => {
    superset = await startHostileSuperset({ dashboards: [DASHBOARD, OTHER] });
  });
  afterAll(() => superset.close());
  afterEach(() => {
    superset.behave('login', undefined);
    superset.behave('csrf', undefined);
    superset.behave('guest', undefined);
  });

  const counts = () => ({ ...superset.calls });
  const mintedApp = (store: TokenStore = createMemoryStore(), options: { timeoutMs?: number } = {}) =>
    createBffApp({
      session: sessionOptions,
      logger: captureLogs().logger,
      store,
      circuitBreaker: false,
      vendor: supersetVendor({
        dashboards: [DASHBOARD, OTHER],
        rls: 'customer_id = {org_id}',
        client: new SupersetClient({ baseUrl: superset.url, username: SUPERSET_USER, password: SUPERSET_PASSWORD, timeoutMs: options.timeoutMs ?? 2000 }),
      }),
    });

  it('one sign-in and one guest token per customer and dashboard for a fleet sharing a store', async () => {
    const store = createMemoryStore();
    const fleet = [mintedApp(store), mintedApp(store), mintedApp(store)];
    const before = counts();
    const jwt = await session(ada);
    const answers = await Promise.all(fleet.flatMap((app) => [1, 2, 3].map(() => call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD })))));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const tokens = new Set(answers.map((a) => (a.body as { token: string }).token));
    expect(tokens.size).toBe(1);
    expect(superset.calls.login - before.login).toBe(1);
    expect(superset.calls.csrf - before.csrf).toBe(1);
    expect(superset.calls.guest - before.guest).toBe(1);
    const token = [...tokens][0]!;
    expect((answers[0]!.body as { expiresAt: number }).expiresAt).toBe(decodeJwt(token).exp! * 1000);
    // Another dashboard of the same customer: its own token, the same sign-in.
    await call(fleet[1]!, '/embed/token', post(jwt, { dashboard: OTHER }));
    expect(superset.calls.guest - before.guest).toBe(2);
    expect(superset.calls.login - before.login).toBe(1);
    // What Superset was asked: the session's user and RLS, the one dashboard.
    expect(superset.guestBodies.at(-1)).toEqual({
      user: { username: 'ada', first_name: 'Ada', last_name: 'Lovelace' },
      resources: [{ type: 'dashboard', id: OTHER }],
      rls: [{ clause: "customer_id = 'acme'" }],
    });
  });

  it("another customer never gets the first one's token", async () => {
    const app = mintedApp();
    const a = await call(app, '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    const b = await call(app, '/embed/token', post(await session({ ...ada, org_id: 'globex' }), { dashboard: DASHBOARD }));
    expect((a.body as { token: string }).token).not.toBe((b.body as { token: string }).token);
    expect(decodeJwt((b.body as { token: string }).token).rls_rules).toEqual([{ clause: "customer_id = 'globex'" }]);
  });

  it('a CSRF session Superset forgot is signed in again once, then served', async () => {
    const app = mintedApp();
    const jwt = await session(ada);
    await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD }));
    superset.forgetSessions();
    const before = counts();
    const res = await call(app, '/embed/token', post(await session({ ...ada, org_id: 'initech' }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    expect(superset.calls.login - before.login).toBe(1);
    expect(superset.calls.guest - before.guest).toBe(2);
  });

  it('an access token Superset no longer verifies (restarted with another SECRET_KEY: 422) is replaced by one sign-in', async () => {
    const app = mintedApp();
    await call(app, '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    superset.newAccessKey();
    const before = counts();
    const res = await call(app, '/embed/token', post(await session({ ...ada, org_id: 'umbrella' }), { dashboard: DASHBOARD }));
    expect(res.status).toBe(200);
    expect(superset.calls.login - before.login).toBe(1);
  });

  it('a refused login is 502 upstream_error, never a 401, never quoting the password', async () => {
    superset.behave('login', (res) => void res.writeHead(401, { 'content-type': 'application/json' }).end('{"message": "Not authorized"}'));
    const res = await call(mintedApp(), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
  });

  it('a CSRF refusal that persists after signing in again is 502, not a 401', async () => {
    superset.behave(
      'guest',
      (res) => void res.writeHead(400, { 'content-type': 'application/json' }).end('{"errors": [{"message": "The CSRF tokens do not match."}]}'),
    );
    const before = counts();
    const res = await call(mintedApp(), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(res.status).toBe(502);
    expect(superset.calls.guest - before.guest).toBe(2);
  });

  it.each([
    [
      'Superset says it does not know the dashboard (400)',
      (res: import('node:http').ServerResponse) => void res.writeHead(400).end('{"message": "Embedded dashboard not found."}'),
      502,
      'upstream_error',
    ],
    ['a 5xx', (res: import('node:http').ServerResponse) => void res.writeHead(500).end('oops'), 502, 'upstream_error'],
    ['a 503', (res: import('node:http').ServerResponse) => void res.writeHead(503).end('down'), 503, 'upstream_unavailable'],
    [
      'an answer that is not a guest token',
      (res: import('node:http').ServerResponse) => void res.writeHead(200).end('{"token": "<script>"}'),
      502,
      'upstream_error',
    ],
    ['a 429', (res: import('node:http').ServerResponse) => void res.writeHead(429, { 'retry-after': '3' }).end('{}'), 429, 'rate_limited'],
  ])('%s: %s %s', async (_name, behaviour, status, code) => {
    superset.behave('guest', behaviour);
    const res = await call(mintedApp(), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { code } });
  });

  it('a Superset that never answers is 504 upstream_timeout within the request', async () => {
    superset.behave('login', () => undefined);
    const res = await call(mintedApp(createMemoryStore(), { timeoutMs: 300 }), '/embed/token', post(await session(ada), { dashboard: DASHBOARD }));
    expect(res.status).toBe(504);
    expect(res.body).toMatchObject({ error: { code: 'upstream_timeout' } });
  });

  it('a stored token that still works is served while Superset is down, and renewal replaces a due one', async () => {
    const app = mintedApp();
    const jwt = await session(ada);
    const first = (await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD }))).body as { token: string };
    superset.behave('guest', (res) => void res.writeHead(500).end());
    // The holder says its token was refused: within the minimum interval it is told to wait, not minted again.
    const throttled = await call(app, '/embed/token/rotate', post(jwt, { dashboard: DASHBOARD, token: first.token }));
    expect(throttled.status).toBe(429);
    const again = await call(app, '/embed/token', post(jwt, { dashboard: DASHBOARD }));
    expect((again.body as { token: string }).token).toBe(first.token);
  });
});
