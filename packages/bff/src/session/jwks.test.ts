import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK } from 'jose';
import { createBffApp } from '../app.js';
import { acme, call, captureLogs, FakeUpstream, findLeaks, tokenRequest } from '../../test/support/fixtures.js';

/** What the identity provider's JWKS endpoint does right now. */
type Mode = 'ok' | 500 | 503 | 'html' | 'redirect' | 'not a key set';

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

async function signingKey(kid: string): Promise<SigningKey> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

/** A real JWKS endpoint over HTTP whose keys and failures the test sets. */
let server: Server;
let jwksUrl: string;
let mode: Mode = 'ok';
let published: SigningKey[] = [];
let fetches = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/elsewhere.json')
      return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    fetches += 1;
    if (mode === 'ok') return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: published.map((k) => k.jwk) }));
    if (mode === 'html') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Sign in</title><p>Please sign in');
    if (mode === 'redirect') return void res.writeHead(302, { location: '/elsewhere.json' }).end();
    if (mode === 'not a key set') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"keys":"none"}');
    res.writeHead(mode, { 'content-type': 'text/plain' }).end('identity provider error');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});
afterEach(() => {
  mode = 'ok';
  published = [];
  fetches = 0;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  expect(findLeaks()).toEqual([]);
});

const bff = () => {
  const logs = captureLogs();
  return { app: createBffApp({ upstream: new FakeUpstream(), session: { jwksUrl }, logger: logs.logger, rateLimit: false }), logs };
};
const sign = (key: SigningKey, claims: Record<string, unknown> = {}) =>
  new SignJWT({ ...acme, exp: Math.floor(Date.now() / 1000) + 600, ...claims }).setProtectedHeader({ alg: 'ES256', kid: key.kid }).sign(key.privateKey);
const ask = (app: ReturnType<typeof bff>['app'], jwt: string) => call(app, 'http://localhost/embed/token', tokenRequest(jwt));
const retryAfterOf = (res: { headers: Headers }) => Number(res.headers.get('retry-after'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('session keys from a JWKS over HTTP: failures', () => {
  it.each<Mode>([500, 503, 'html', 'redirect', 'not a key set'])(
    'answers 503 upstream_unavailable with Retry-After (never 401) while the JWKS answers %s, and fetches it once for a burst',
    async (failure) => {
      const key = await signingKey('k1');
      published = [key];
      mode = failure;
      const { app, logs } = bff();
      const jwt = await sign(key);
      const answers = await Promise.all(Array.from({ length: 20 }, () => ask(app, jwt)));
      for (const res of answers) {
        expect(res.status).toBe(503);
        expect(res.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
        expect(retryAfterOf(res)).toBeGreaterThanOrEqual(1);
      }
      // Cooled down: one fetch for twenty requests, and one log line for it.
      expect(fetches).toBe(1);
      expect(logs.lines.filter((l) => l.includes('session keys could not be fetched'))).toHaveLength(1);
    },
  );

  it('serves again once the identity provider recovers and Retry-After has passed', async () => {
    const key = await signingKey('k1');
    published = [key];
    mode = 503;
    const { app } = bff();
    const jwt = await sign(key);
    const refused = await ask(app, jwt);
    expect(refused.status).toBe(503);
    mode = 'ok';
    await sleep(retryAfterOf(refused) * 1000);
    expect((await ask(app, jwt)).status).toBe(200);
    expect(fetches).toBe(2);
  });
});

describe('session keys from a JWKS over HTTP: key rotation', () => {
  it('accepts a token signed with a newly published key by following Retry-After for at most 2 s, never answering 401', async () => {
    const [oldKey, newKey] = await Promise.all([signingKey('k1'), signingKey('k2')]);
    published = [oldKey];
    const { app } = bff();
    expect((await ask(app, await sign(oldKey))).status).toBe(200);
    // The provider rotates: publishes k2, drops k1, and signs with k2 at once.
    published = [newKey];
    const jwt = await sign(newKey, { sub: 'after-rotation' });
    let waited = 0;
    let res = await ask(app, jwt);
    while (res.status === 503 && waited < 2) {
      expect(res.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
      waited += retryAfterOf(res);
      await sleep(retryAfterOf(res) * 1000);
      res = await ask(app, jwt);
    }
    expect(res.status).toBe(200);
    expect(waited).toBeLessThanOrEqual(2);
    expect(fetches).toBe(2);
  });

  it('refetches at most once a second for tokens with forged kids, and never accepts them', async () => {
    const real = await signingKey('k1');
    published = [real];
    const { app } = bff();
    expect((await ask(app, await sign(real))).status).toBe(200);
    const forged = await Promise.all(Array.from({ length: 30 }, (_, i) => signingKey(`forged-${i}`).then((k) => sign(k))));
    const answers = await Promise.all(forged.map((jwt) => ask(app, jwt)));
    for (const res of answers) expect([401, 503]).toContain(res.status);
    // The first fetch, plus at most one refetch for the whole burst.
    expect(fetches).toBeLessThanOrEqual(2);
  });

  it('answers 401 for an unknown kid once a key set fetched after the token arrived lacks it', async () => {
    const [real, other] = await Promise.all([signingKey('k1'), signingKey('k9')]);
    published = [real];
    const { app } = bff();
    const res = await ask(app, await sign(other));
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: { code: 'unauthenticated', message: 'session is signed with an unknown key' } });
  });
});
