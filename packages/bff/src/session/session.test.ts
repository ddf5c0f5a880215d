import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { acme, call, captureLogs, FakeUpstream, findLeaks, session, SESSION_KEY, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
const future = () => Math.floor(Date.now() / 1000) + 3600;

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  const app = createBffApp({ upstream, session: { secret: SESSION_SECRET }, logger: logs.logger, rateLimit: false, ...overrides });
  return { app, upstream, logs };
}

const ask = (app: ReturnType<typeof setup>['app'], jwt: string | undefined, headers: Record<string, string> = {}) =>
  call(app, '/embed/token', tokenRequest(jwt, {}, headers));

const errorOf = (body: unknown) => (body as { error: { code: string; message: string } }).error;

afterAll(() => expect(findLeaks()).toEqual([]));

describe('session JWT verification (HS256 secret)', () => {
  it('accepts a valid session', async () => {
    const { app } = setup();
    expect((await ask(app, await session())).status).toBe(200);
  });

  it.each([
    ['no session', undefined, /no Bearer session/],
    ['alg none', `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ ...acme, exp: future() })}.`, /./],
    ['malformed', 'not-a-jwt', /malformed/],
    ['three garbage parts', 'a.b.c', /./],
    ['oversized', `${'a'.repeat(9000)}.b.c`, /too long/],
  ])('refuses %s with 401', async (_, jwt, message) => {
    const { app, upstream } = setup();
    const res = await ask(app, jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body)).toMatchObject({ code: 'unauthenticated', message: expect.stringMatching(message) });
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it('refuses HS512 when HS256 is expected, even with the right secret', async () => {
    const { app } = setup();
    const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'HS512' }).sign(SESSION_KEY);
    const res = await ask(app, jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).message).toMatch(/algorithm/);
  });

  it('refuses a session signed with another secret', async () => {
    const { app } = setup();
    const res = await ask(app, await session(acme, { key: new TextEncoder().encode('another-secret-of-enough-length-0123456789') }));
    expect(res.status).toBe(401);
    expect(errorOf(res.body).message).toMatch(/signature/);
  });

  it('refuses an RS256 session when a secret is configured', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const { app } = setup();
    const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    expect((await ask(app, jwt)).status).toBe(401);
  });

  it('refuses an expired session, and accepts one within the 5 s clock tolerance', async () => {
    const { app } = setup();
    expect(errorOf((await ask(app, await session(acme, { expSeconds: -60 }))).body).message).toBe('session expired');
    expect((await ask(app, await session(acme, { expSeconds: -2 }))).status).toBe(200);
  });

  it('refuses a session without exp', async () => {
    const { app } = setup();
    const jwt = await new SignJWT(acme).setProtectedHeader({ alg: 'HS256' }).sign(SESSION_KEY);
    const res = await ask(app, jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).message).toMatch(/"exp"/);
  });

  it('refuses a session that is not valid yet', async () => {
    const { app } = setup();
    const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'HS256' }).setNotBefore('10 min').sign(SESSION_KEY);
    const res = await ask(app, jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).message).toMatch(/not valid yet/);
  });

  it('checks issuer and audience when configured', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, issuer: 'https://auth.example', audience: 'embed' } });
    const sign = (iss: string, aud: string) =>
      new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'HS256' }).setIssuer(iss).setAudience(aud).sign(SESSION_KEY);
    expect((await ask(app, await sign('https://auth.example', 'embed'))).status).toBe(200);
    expect(errorOf((await ask(app, await sign('https://evil.example', 'embed'))).body).message).toMatch(/"iss"/);
    expect(errorOf((await ask(app, await sign('https://auth.example', 'other'))).body).message).toMatch(/"aud"/);
    expect((await ask(app, await session())).status).toBe(401);
  });

  it('stops accepting a cached session once it expires', async () => {
    let t = Date.now();
    const { app, upstream } = setup({ now: () => t });
    const jwt = await session(acme, { expSeconds: 60 });
    expect((await ask(app, jwt)).status).toBe(200);
    expect((await ask(app, jwt)).status).toBe(200);
    t += 70_000;
    const res = await ask(app, jwt);
    expect(res.status).toBe(401);
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it('a cached session is found by its exact header; any other header is parsed and checked again', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, cookie: 'embed_session' } });
    const jwt = await session();
    expect((await ask(app, undefined, { cookie: `embed_session=${jwt}` })).status).toBe(200);
    // Same token in another cookie header: parsed again, served from the token cache.
    expect((await ask(app, undefined, { cookie: `a=1; embed_session=${jwt}` })).status).toBe(200);
    // The cached token under another cookie name, or cut short, is not the session.
    expect((await ask(app, undefined, { cookie: `embed_session_x=${jwt}` })).status).toBe(401);
    expect((await ask(app, undefined, { cookie: `embed_session=${jwt.slice(0, -1)}` })).status).toBe(401);
    const bearer = setup();
    const header = `Bearer ${jwt}`;
    expect(
      (await call(bearer.app, '/embed/token', { method: 'POST', headers: { 'content-type': 'application/json', authorization: header }, body: '{}' })).status,
    ).toBe(200);
    for (const variant of [`bearer  ${jwt}`, `Bearer ${jwt} `]) {
      expect(
        (await call(bearer.app, '/embed/token', { method: 'POST', headers: { 'content-type': 'application/json', authorization: variant }, body: '{}' }))
          .status,
      ).toBe(200);
    }
    for (const bad of [`Bearer ${jwt} x`, `Basic ${jwt}`, jwt]) {
      expect(
        (await call(bearer.app, '/embed/token', { method: 'POST', headers: { 'content-type': 'application/json', authorization: bad }, body: '{}' })).status,
      ).toBe(401);
    }
  });

  it('serves a session carried in a cookie header far longer than any token, again and again', async () => {
    // Such headers are not remembered whole (bounded cache memory); the token inside still is.
    const { app, upstream } = setup({ session: { secret: SESSION_SECRET, cookie: 'embed_session' } });
    const jwt = await session();
    const cookie = `${'x'.repeat(20_000)}=1; embed_session=${jwt}`;
    for (let i = 0; i < 3; i++) expect((await ask(app, undefined, { cookie })).status).toBe(200);
    expect((await ask(app, undefined, { cookie: `${'x'.repeat(20_000)}=1; embed_session=${jwt.slice(0, -2)}` })).status).toBe(401);
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it('reads the session from the configured cookie only', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, cookie: 'embed_session' } });
    const jwt = await session();
    expect((await ask(app, undefined, { cookie: `other=1; embed_session=${jwt}` })).status).toBe(200);
    const bearerOnly = await ask(app, jwt);
    expect(bearerOnly.status).toBe(401);
    expect(errorOf(bearerOnly.body).message).toMatch(/cookie "embed_session"/);
  });
});

describe('claims to group input', () => {
  it.each([
    ['no org_id', { org_name: 'A', embed_properties: {} }, /no "org_id"/],
    ['no org_name', { org_id: 'a', embed_properties: {} }, /no "org_name"/],
    ['no properties', { org_id: 'a', org_name: 'A' }, /no "embed_properties"/],
    ['org_id of wrong type', { org_id: true, org_name: 'A', embed_properties: {} }, /"org_id" must be/],
    ['org_id object', { org_id: { $ne: 1 }, org_name: 'A', embed_properties: {} }, /"org_id" must be/],
    ['empty org_id', { org_id: ' ', org_name: 'A', embed_properties: {} }, /"org_id" must be/],
    ['org_name of wrong type', { org_id: 'a', org_name: 5, embed_properties: {} }, /"org_name" must be/],
    ['properties array', { org_id: 'a', org_name: 'A', embed_properties: ['x'] }, /"embed_properties" must be/],
    ['properties string', { org_id: 'a', org_name: 'A', embed_properties: '{}' }, /"embed_properties" must be/],
    ['mapping with non-string values', { org_id: 'a', org_name: 'A', embed_properties: {}, embed_mapping: { s: 1 } }, /"embed_mapping" must be/],
  ])('refuses a session with %s (403, no group touched)', async (_, claims, message) => {
    const { app, upstream } = setup();
    const res = await ask(app, await session(claims));
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'forbidden', message: expect.stringMatching(message) });
    expect(upstream.calls).toEqual({ getOrCreate: 0, update: 0, rotate: 0 });
  });

  it('maps custom claim names, a numeric id, and the static mapping fallback', async () => {
    const { app, upstream } = setup({
      session: { secret: SESSION_SECRET, claims: { groupId: 'tenant', groupName: 'tenant_name', properties: 'props' }, staticMapping: { schema: 'ds-1' } },
    });
    expect((await ask(app, await session({ tenant: 42, tenant_name: 'Tenant 42', props: { tier: 'gold' } }))).status).toBe(200);
    expect(upstream.groups.get('42')!.group).toEqual({ user_group_id: '42', name: 'Tenant 42', properties: { tier: 'gold' }, mapping: { schema: 'ds-1' } });
  });

  it('prefers the mapping claim over the static mapping', async () => {
    const { app, upstream } = setup({ session: { secret: SESSION_SECRET, staticMapping: { schema: 'ds-1' } } });
    await ask(app, await session({ ...acme, embed_mapping: { schema: 'ds-2' } }));
    expect(upstream.groups.get('acme')!.group.mapping).toEqual({ schema: 'ds-2' });
  });

  it("manages no mapping without a claim or a static one: the group input has none (the vendor's stays)", async () => {
    const { app, upstream } = setup();
    expect((await ask(app, await session(acme))).status).toBe(200);
    expect(upstream.groups.get('acme')!.group).not.toHaveProperty('mapping');
  });

  it("lets identify() leave the mapping out, and refuses a malformed one as the integrator's bug (500)", async () => {
    const base = { user_group_id: 'hooked', name: 'Hooked', properties: {} };
    const without = setup({ session: undefined, identify: () => ({ group: base }) });
    expect((await ask(without.app, undefined)).status).toBe(200);
    expect(without.upstream.groups.get('hooked')!.group).not.toHaveProperty('mapping');
    for (const mapping of [null, ['ds'], { s: 1 }, 'ds']) {
      const bad = setup({ session: undefined, identify: () => ({ group: { ...base, mapping } as never }) });
      expect((await ask(bad.app, undefined)).status).toBe(500);
    }
  });
});

describe('identify hook', () => {
  it('uses the group it returns, and 401 for null', async () => {
    let signedIn = true;
    const group = { user_group_id: 'hooked', name: 'Hooked', properties: { a: 1 }, mapping: {} };
    const { app, upstream } = setup({ session: undefined, identify: () => (signedIn ? { group } : null) });
    expect((await ask(app, undefined)).status).toBe(200);
    expect(upstream.groups.get('hooked')!.group).toEqual(group);
    signedIn = false;
    expect((await ask(app, undefined)).status).toBe(401);
  });

  it('answers 500 (not a half-filled group) when the hook returns a bad group', async () => {
    const { app, upstream, logs } = setup({ session: undefined, identify: () => ({ group: { user_group_id: 'x', name: '', properties: {}, mapping: {} } }) });
    const res = await ask(app, undefined);
    expect(res.status).toBe(500);
    expect(upstream.calls.getOrCreate).toBe(0);
    expect(logs.lines.some((l) => l.includes('identify() returned a group that has no valid name'))).toBe(true);
  });
});

describe('identify hook issuedAt', () => {
  const group = { user_group_id: 'hooked', name: 'Hooked', properties: { a: 1 }, mapping: {} };

  it.each([
    ['in milliseconds', () => Date.now(), /issuedAt \d+ s in the future \(epoch seconds expected\)/],
    ['an hour ahead', () => Date.now() / 1000 + 3600, /issuedAt 3600 s in the future/],
    ['not a number', () => '1790000000' as unknown as number, /issuedAt that is not epoch seconds/],
    ['NaN', () => Number.NaN, /issuedAt that is not epoch seconds/],
  ])('answers 500 and calls no vendor when it is %s', async (_, issuedAt, logged) => {
    const { app, upstream, logs } = setup({ session: undefined, identify: () => ({ group, issuedAt: issuedAt() }) });
    expect((await ask(app, undefined)).status).toBe(500);
    expect(upstream.calls.getOrCreate).toBe(0);
    expect(logs.lines.some((l) => logged.test(l))).toBe(true);
  });

  it('accepts one a few seconds ahead, and orders answers by it', async () => {
    let answer = { group, issuedAt: Date.now() / 1000 + 30 };
    const { app, upstream } = setup({ session: undefined, identify: () => answer });
    expect((await ask(app, undefined)).status).toBe(200);
    answer = { group: { ...group, properties: { a: 0 } }, issuedAt: Date.now() / 1000 };
    expect((await ask(app, undefined)).status).toBe(200);
    expect(upstream.groups.get('hooked')!.group.properties).toEqual({ a: 1 });
    answer = { group: { ...group, properties: { a: 2 } }, issuedAt: Date.now() / 1000 + 31 };
    expect((await ask(app, undefined)).status).toBe(200);
    expect(upstream.groups.get('hooked')!.group.properties).toEqual({ a: 2 });
  });
});

describe('options', () => {
  it('refuses unsafe session settings with a TypeError naming them', () => {
    const upstream = new FakeUpstream();
    expect(() => createBffApp({ upstream, session: { secret: 'short' } })).toThrow(/at least 32 bytes/);
    expect(() => createBffApp({ upstream, session: {} })).toThrow(/exactly one of/);
    expect(() => createBffApp({ upstream, session: { secret: SESSION_SECRET, algorithms: ['none'] } })).toThrow(/algorithms/);
    expect(() => createBffApp({ upstream, session: { jwksUrl: 'https://x.example/jwks', algorithms: ['HS256'] } })).toThrow(/HS\*/);
    expect(() => createBffApp({ upstream })).toThrow(/session or identify/);
    expect(() => createBffApp({ upstream, session: { secret: SESSION_SECRET }, allowedOrigins: ['https://a.example/path'] })).toThrow(/allowedOrigins/);
  });
});

describe('session JWT verification (remote JWKS over a socket)', () => {
  let jwksUrl: string;
  let publicJwk: JWK;
  let privateKey: CryptoKey;
  let close: () => void;
  let jwksRequests = 0;

  beforeAll(async () => {
    const pair = await generateKeyPair('RS256', { extractable: true });
    privateKey = pair.privateKey;
    publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    const jwks = new Hono().get('/jwks.json', (c) => {
      jwksRequests += 1;
      return c.json({ keys: [publicJwk] });
    });
    await new Promise<void>((resolve) => {
      const server = serve({ fetch: jwks.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
        jwksUrl = `http://127.0.0.1:${info.port}/jwks.json`;
        close = () => server.close();
        resolve();
      });
    });
  });
  afterAll(() => close());

  it('accepts RS256 sessions from the JWKS, and fetches the key set once', async () => {
    const { app } = setup({ session: { jwksUrl } });
    for (const sub of ['u1', 'u2', 'u3']) {
      const jwt = await new SignJWT({ ...acme, sub, exp: future() }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
      expect((await ask(app, jwt)).status).toBe(200);
    }
    expect(jwksRequests).toBe(1);
  });

  it('refuses an HS256 session forged with the public key as the HMAC secret (key confusion)', async () => {
    const { app } = setup({ session: { jwksUrl } });
    const forgedSecret = new TextEncoder().encode(JSON.stringify(publicJwk));
    const forged = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(forgedSecret);
    const res = await ask(app, forged);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).message).toMatch(/algorithm/);
  });

  it('refuses a session signed by a key not in the set', async () => {
    const { app } = setup({ session: { jwksUrl } });
    const other = await generateKeyPair('RS256');
    const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'RS256', kid: 'k2' }).sign(other.privateKey);
    expect((await ask(app, jwt)).status).toBe(401);
  });

  it('answers 503 (not 401) when the key set cannot be fetched', async () => {
    const { app } = setup({ session: { jwksUrl: 'http://127.0.0.1:9/jwks.json' } });
    const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(privateKey);
    const res = await ask(app, jwt);
    expect(res.status).toBe(503);
    expect(errorOf(res.body).code).toBe('upstream_unavailable');
  });
});
