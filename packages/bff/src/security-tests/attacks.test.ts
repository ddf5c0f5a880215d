import { afterAll, describe, expect, it } from 'vitest';
import { createHmac } from 'node:crypto';
import { createLocalJWKSet, exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
import { createBffApp } from '../app.js';
import { parseConfig } from '../cli/env.js';
import { createJsonLogger } from '../observability/logger.js';
import type { BffAppOptions } from '../options.js';
import {
  acme,
  API_TOKEN,
  call,
  captureLogs,
  emitted,
  FakeUpstream,
  findLeaks,
  session,
  SESSION_KEY,
  SESSION_SECRET,
  tokenRequest,
} from '../../test/support/fixtures.js';

/**
 * Security review: attacks through `app.request`, each stating the safe behaviour. Every finding
 * of the review is fixed; its test is what keeps it fixed.
 */

const ORIGIN = 'http://localhost';
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const future = () => Math.floor(Date.now() / 1000) + 3600;
/** A compact HS256 JWS with exactly this header and payload text, signed with the real session secret. */
const hs256 = (header: Record<string, unknown>, payload: unknown) => {
  const signingInput = `${b64(header)}.${b64(payload)}`;
  return `${signingInput}.${createHmac('sha256', SESSION_KEY).update(signingInput).digest('base64url')}`;
};

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  const app = createBffApp({ upstream, session: { secret: SESSION_SECRET }, logger: logs.logger, secrets: [API_TOKEN], rateLimit: false, ...overrides });
  return { app, upstream, logs };
}
const ask = (app: ReturnType<typeof setup>['app'], jwt: string | undefined, headers: Record<string, string> = {}, path = '/embed/token') =>
  call(app, path.startsWith('http') ? path : `${ORIGIN}${path}`, tokenRequest(jwt, {}, headers));
const codeOf = (body: unknown) => (body as { error?: { code: string } }).error?.code;

afterAll(() => {
  expect(findLeaks()).toEqual([]);
  expect(Object.prototype).not.toHaveProperty('polluted');
  // No user group token of the fake vendor ever reached a log line.
  expect(emitted.filter((e) => e.startsWith('{') && /ugt-\d+-/.test(e))).toEqual([]);
});

describe('session JWT attacks', () => {
  it.each([
    ['crit with an unknown extension', { alg: 'HS256', crit: ['x-evil'], 'x-evil': true }],
    ['b64:false (unencoded payload)', { alg: 'HS256', b64: false, crit: ['b64'] }],
    ['alg in lower case', { alg: 'hs256' }],
    ['alg None', { alg: 'None' }],
    ['a kid with path traversal', { alg: 'HS256', kid: '../../../../dev/null' }],
    ['a jku pointing elsewhere', { alg: 'HS256', jku: 'http://127.0.0.1:9/jwks' }],
  ])('refuses a header with %s with 401 (never 5xx)', async (_, header) => {
    const { app, upstream } = setup();
    const jwt = hs256(header, { ...acme, exp: future() });
    const res = await ask(app, jwt);
    // A kid or jku is ignored with a shared secret, so those two are valid HS256 sessions.
    if ('kid' in header || 'jku' in header) expect(res.status).toBe(200);
    else {
      expect(res.status).toBe(401);
      expect(upstream.calls.getOrCreate).toBe(0);
    }
  });

  it.each([
    ['a payload that is a JSON array', '[1,2]'],
    ['a payload that is a JSON string', '"acme"'],
    ['a payload that is not JSON', 'not json'],
    ['exp as a string', JSON.stringify({ ...acme, exp: String(future()) })],
    ['nbf as an object', JSON.stringify({ ...acme, exp: future(), nbf: {} })],
    ['iss as an array', JSON.stringify({ ...acme, exp: future(), iss: ['a'] })],
  ])('refuses %s with 401 or 403, never 5xx', async (_, payload) => {
    const { app, upstream } = setup({ session: { secret: SESSION_SECRET, issuer: 'a' } });
    const res = await ask(app, hs256({ alg: 'HS256' }, payload));
    expect([401, 403]).toContain(res.status);
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it("refuses a token with an embedded jwk header signed by the attacker's own key (JWKS configured)", async () => {
    const real = await generateKeyPair('ES256', { extractable: true });
    const attacker = await generateKeyPair('ES256', { extractable: true });
    const jwks = { keys: [{ ...(await exportJWK(real.publicKey)), kid: 'k1', alg: 'ES256' } as JWK] };
    const { app } = setup({ session: { getKey: createLocalJWKSet(jwks) } });
    const jwk = await exportJWK(attacker.publicKey);
    for (const header of [
      { alg: 'ES256', jwk },
      { alg: 'ES256', kid: 'k1', jwk },
      { alg: 'ES256', kid: 'k1' },
    ]) {
      const jwt = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader(header).sign(attacker.privateKey);
      expect((await ask(app, jwt)).status).toBe(401);
    }
    const good = await new SignJWT({ ...acme, exp: future() }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).sign(real.privateKey);
    expect((await ask(app, good)).status).toBe(200);
  });

  it('session cache cannot be poisoned: a token differing only in its signature is verified on its own', async () => {
    const { app } = setup();
    const jwt = await session();
    expect((await ask(app, jwt)).status).toBe(200);
    const [h, p, s] = jwt.split('.') as [string, string, string];
    const flipped = `${h}.${p}.${s.slice(0, -2)}${s.endsWith('AA') ? 'BA' : 'AA'}`;
    expect((await ask(app, flipped)).status).toBe(401);
    // Same signature, claims swapped to another org: refused too.
    const forged = `${h}.${b64({ org_id: 'globex', org_name: 'G', embed_properties: {}, exp: future() })}.${s}`;
    expect((await ask(app, forged)).status).toBe(401);
  });

  it('a cached session stops working the instant exp passes (no tolerance on the cache path)', async () => {
    let t = Date.now();
    const { app } = setup({ now: () => t });
    const jwt = await session(acme, { expSeconds: 10 });
    expect((await ask(app, jwt)).status).toBe(200);
    t += 10_001;
    // Within the 5 s tolerance a fresh verify would pass; the cache entry is dropped and re-verified.
    expect((await ask(app, jwt)).status).toBe(200);
    t += 6_000;
    expect((await ask(app, jwt)).status).toBe(401);
  });

  it.each([
    ['org_id as an array', { ...acme, org_id: ['acme'] }],
    ['org_id as an object with toString', { ...acme, org_id: { toString: 'acme' } }],
    ['org_id null', { ...acme, org_id: null }],
    ['org_name as an array', { ...acme, org_name: ['A'] }],
    ['embed_properties null', { ...acme, embed_properties: null }],
    ['embed_mapping as an array of strings', { ...acme, embed_mapping: ['a'] }],
    ['embed_mapping with a nested object', { ...acme, embed_mapping: { a: { b: 'c' } } }],
  ])('refuses %s with 403 before the vendor is called', async (_, claims) => {
    const { app, upstream } = setup();
    const res = await ask(app, await session(claims));
    expect(res.status).toBe(403);
    expect(upstream.calls).toEqual({ getOrCreate: 0, update: 0, rotate: 0 });
  });

  it('a session of the maximum length is read; one byte over is refused unparsed', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, maxTokenLength: 2000 } });
    const big = await session({ ...acme, embed_properties: { pad: 'x'.repeat(1000) } });
    expect((await ask(app, big)).status).toBe(200);
    const huge = await session({ ...acme, embed_properties: { pad: 'x'.repeat(2000) } });
    const res = await ask(app, huge);
    expect(res.status).toBe(401);
    expect(res.text).toMatch(/too long/);
  });

  it('embed_properties with __proto__ / constructor keys pollute nothing and still drive drift sync', async () => {
    const { app, upstream } = setup();
    const claims = (region: string) =>
      JSON.parse(
        `{"org_id":"acme","org_name":"Acme","embed_properties":{"__proto__":{"polluted":"${region}"},"constructor":{"prototype":{"polluted":1}}}}`,
      ) as Record<string, unknown>;
    expect((await ask(app, await session(claims('EU')))).status).toBe(200);
    expect((await ask(app, await session(claims('US')))).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    // The second session's properties differ only under "__proto__": the vendor was updated.
    expect(upstream.calls.update).toBe(1);
    expect(JSON.stringify(upstream.groups.get('acme')!.group.properties)).toContain('"US"');
  });
});

describe('CSRF, Origin and CORS', () => {
  it.each([
    ['upper-case scheme and host', 'HTTP://LOCALHOST'],
    ['a trailing slash', 'http://localhost/'],
    ['an explicit default port', 'http://localhost:80'],
    ['another port', 'http://localhost:3000'],
    ['null', 'null'],
    ['a suffix domain', 'http://localhost.evil.example'],
    ['two origins', 'http://localhost, https://evil.example'],
  ])('refuses Origin with %s (403, no CORS headers)', async (_, origin) => {
    const { app, upstream } = setup({ allowedOrigins: ['https://app.example'] });
    const res = await ask(app, await session(), { origin });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it('never reflects an arbitrary origin, in a preflight or an answer', async () => {
    const { app } = setup({ allowedOrigins: ['https://app.example'] });
    for (const origin of ['https://evil.example', 'https://app.example.evil.example', 'https://APP.example']) {
      const pre = await call(app, `${ORIGIN}/embed/token`, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'POST' } });
      expect(pre.headers.get('access-control-allow-origin')).toBeNull();
      expect(pre.headers.get('cache-control')).toBe('no-store');
    }
    const ok = await ask(app, await session(), { origin: 'https://app.example' });
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it.each([
    ['application/json;charset=utf-8', 200],
    ['application/json ; charset=UTF-8', 200],
    ['text/plain', 415],
    ['text/plain; application/json', 415],
    ['application/json-patch+json', 415],
    ['application/x-www-form-urlencoded', 415],
  ])('Content-Type %s → %i', async (type, status) => {
    const { app } = setup();
    const res = await call(app, `${ORIGIN}/embed/token`, {
      method: 'POST',
      headers: { 'content-type': type, authorization: `Bearer ${await session()}` },
      body: '{}',
    });
    expect(res.status).toBe(status);
  });

  it('a cross-site simple request (text/plain, cookie session, no Origin) is refused by Content-Type alone', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, cookie: 'sid' } });
    const res = await call(app, `${ORIGIN}/embed/token/rotate`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', cookie: `sid=${await session()}`, 'sec-fetch-site': 'cross-site' },
      body: '{"token":"x"}',
    });
    expect(res.status).toBe(415);
  });

  it('a cookie session without Origin passes (non-browser callers); the body type is the CSRF defence', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, cookie: 'sid' } });
    const res = await call(app, `${ORIGIN}/embed/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: `sid=${await session()}` },
      body: '{}',
    });
    expect(res.status).toBe(200);
  });
});

describe('what responses, headers, logs and metrics carry', () => {
  it('no-store on 404, wrong method, preflight without Origin, HEAD and thrown errors', async () => {
    const { app, upstream } = setup();
    upstream.failNext.getOrCreate = [new TypeError(`boom ${API_TOKEN}`)];
    const responses = [
      await call(app, '/embed/token'),
      await call(app, '/embed/token', { method: 'PUT' }),
      await call(app, '/embed/token', { method: 'OPTIONS' }),
      await call(app, '/healthz', { method: 'HEAD' }),
      await call(app, '/embed/token', tokenRequest(await session())),
    ];
    expect(responses.map((r) => r.status)).toEqual([404, 404, 404, 200, 500]);
    for (const res of responses) expect(res.headers.get('cache-control')).toBe('no-store');
    expect(responses[4]!.text).not.toContain('boom');
  });

  it('no user group token, session JWT or API token reaches a log line, /metrics or /readyz', async () => {
    const { app, logs, upstream } = setup({ exposeMetrics: true });
    const jwt = await session();
    const { token } = (await ask(app, jwt)).body as { token: string };
    // The client redacts user group tokens from its own errors; the BFF must add none of its own.
    upstream.failNext.rotate = [new Error(`vendor said no, Authorization: Token ${API_TOKEN}`)];
    await call(app, '/embed/token/rotate', tokenRequest(jwt, { token }));
    const metrics = await call(app, '/metrics');
    const ready = await call(app, '/readyz');
    for (const text of [...logs.lines, metrics.text, ready.text]) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(jwt);
      expect(text).not.toContain(API_TOKEN);
    }
    expect(Object.keys(ready.body as object).sort()).toEqual(['status', 'store']);
  });

  // FIXED FINDING (low): /metrics used to be served on the public listener by default; now it is
  // opt-in (exposeMetrics), and the CLI serves it only on its own EMBED_METRICS_PORT listener.
  it('does not serve /metrics to the public by default', async () => {
    const { app } = setup();
    expect((await call(app, '/metrics')).status).toBe(404);
  });

  // FIXED FINDING (low): the safety-net redaction matched secrets only as they are, so a secret
  // containing a character JSON escapes (`"` or `\`) was written to the log in full.
  it('redacts a secret that contains a quote or a backslash', () => {
    const secret = 'pa"ss\\word-0123456789';
    const lines: string[] = [];
    const logger = createJsonLogger({ write: (l) => lines.push(l), secrets: [secret, 'tab\tand\u0001control'] });
    logger.error('vendor call failed', { error: { message: `Authorization: Token ${secret}` }, other: 'x tab\tand\u0001control y' });
    const parsed = JSON.parse(lines[0]!);
    expect(parsed.error.message).not.toContain(secret);
    expect(parsed.error.message).toBe('Authorization: Token [redacted]');
    expect(parsed.other).toBe('x [redacted] y');
  });
});

describe('rate limits', () => {
  it('new sessions (new sub) of one group get their own bucket; a bad session is never counted', async () => {
    const { app } = setup({ rateLimit: { token: { limit: 1, windowSeconds: 60 } } });
    expect((await ask(app, await session({ ...acme, sub: 'u1' }))).status).toBe(200);
    expect((await ask(app, await session({ ...acme, sub: 'u1' }))).status).toBe(429);
    expect((await ask(app, await session({ ...acme, sub: 'u2' }))).status).toBe(200);
    expect((await ask(app, 'garbage')).status).toBe(401);
  });

  // FIXED FINDING (low): without a `sub` claim every session of a group used to share one bucket;
  // now the bucket is the `jti`, else a hash of the session token.
  it('two different sessions of one group without sub are limited separately (per session, §4)', async () => {
    const { app } = setup({ rateLimit: { token: { limit: 1, windowSeconds: 60 } } });
    expect((await ask(app, await session({ ...acme, jti: 'login-1' }))).status).toBe(200);
    expect((await ask(app, await session({ ...acme, jti: 'login-2' }))).status).toBe(200);
  });

  it('without sub or jti, each session token is its own bucket, and one token is still limited', async () => {
    const { app } = setup({ rateLimit: { token: { limit: 1, windowSeconds: 60 } } });
    const first = await session(acme, { expSeconds: 600 });
    const second = await session(acme, { expSeconds: 601 });
    expect(first).not.toBe(second);
    expect((await ask(app, first)).status).toBe(200);
    expect((await ask(app, first)).status).toBe(429);
    expect((await ask(app, second)).status).toBe(200);
  });
});

describe('environment check', () => {
  // FIXED FINDING (low): with expectEnvironment set, a vendor answer whose api_environment_tag is
  // null (allowed by the spec) used to leave the environment unknown and serve the token.
  it('refuses to serve when expectEnvironment is set and the vendor never states the environment', async () => {
    const { app, upstream, logs } = setup({ expectEnvironment: 'Customer' });
    upstream.environment = null;
    const res = await ask(app, await session());
    expect(res.status).toBe(502);
    expect(codeOf(res.body)).toBe('upstream_error');
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('environment unknown'))).toBe(true);
    // Refused before the customer's group was touched, and remembered: no vendor call after it.
    expect(upstream.groups.has('acme')).toBe(false);
    const calls = { ...upstream.calls };
    upstream.environment = 'Customer';
    expect((await ask(app, await session())).status).toBe(502);
    expect(upstream.calls).toEqual(calls);
  });
});

describe('CLI configuration', () => {
  const SECRET = 'review-session-secret-0123456789abcdef-LEAKCHECK';
  const minimal = { EMBED_UPSTREAM_URL: 'http://127.0.0.1:8790', EMBED_API_TOKEN: API_TOKEN, EMBED_SESSION_SECRET: SECRET };

  it('never quotes a secret back, whatever is wrong with it', () => {
    const cases = [
      { ...minimal, EMBED_API_TOKEN: `${API_TOKEN} x` },
      { ...minimal, EMBED_SESSION_SECRET: 'LEAKCHECK-short' },
      { ...minimal, EMBED_REDIS_URL: 'http://user:LEAKCHECK-redis-pass@host' },
      { ...minimal, EMBED_SESSION_JWKS_URL: 'https://x.example/jwks' },
    ];
    for (const env of cases) {
      const { problems } = parseConfig(env);
      expect(problems.length).toBeGreaterThan(0);
      expect(problems.join('\n')).not.toMatch(/LEAKCHECK/);
    }
  });

  it.each([
    ['*', false],
    ['null', false],
    ['https://app.example/', false],
    ['https://APP.example', false],
    ['javascript:alert(1)', false],
    ['https://app.example,,  https://b.example ', true],
  ])('EMBED_ALLOWED_ORIGINS %j accepted: %s', (origins, ok) => {
    const { problems } = parseConfig({ ...minimal, EMBED_ALLOWED_ORIGINS: origins });
    expect(problems.length === 0).toBe(ok);
  });

  it('a hostile JSON config (prototype keys, unknown keys, nested values) is refused key by key', () => {
    const file = JSON.parse(
      '{"__proto__":{"EMBED_API_TOKEN":"x"},"constructor":1,"EMBED_UPSTREAM_URL":{"href":"http://x"},"EMBED_API_TOKEN":["a"]}',
    ) as unknown;
    const { problems, config } = parseConfig({ EMBED_SESSION_SECRET: SECRET }, file);
    expect(config).toBeUndefined();
    expect(problems).toEqual(
      expect.arrayContaining([
        'config file: unknown key "__proto__"',
        'config file: unknown key "constructor"',
        'config file: EMBED_UPSTREAM_URL has an unsupported type',
        'config file: EMBED_API_TOKEN has an unsupported type',
      ]),
    );
    expect(({} as Record<string, unknown>).EMBED_API_TOKEN).toBeUndefined();
  });

  it('EMBED_EXPECT_ENVIRONMENT accepts only the two exact tags', () => {
    for (const value of ['customer', 'Production', 'Customer,Testing'])
      expect(parseConfig({ ...minimal, EMBED_EXPECT_ENVIRONMENT: value }).problems).toHaveLength(1);
    expect(parseConfig({ ...minimal, EMBED_EXPECT_ENVIRONMENT: 'Testing' }).config?.expectEnvironment).toBe('Testing');
  });
});
