import { afterAll, describe, expect, it } from 'vitest';
import { createNodeTransport, type Transport } from '@embedded-dashboard/client';
import { UPSTREAM_APIS, type FaultSettings } from '@embedded-dashboard/protocol';
import type { BffAppOptions } from './options.js';
import { acme, API_TOKEN, emitted, findLeaks, session } from '../test/support/fixtures.js';
import { emulatorBffs } from '../test/support/socket-bffs.js';

const TESTING_API_TOKEN = 'LEAKCHECK-testing-api-token-5d1e0a7c';

const emu = emulatorBffs({ testingApiToken: TESTING_API_TOKEN, admin: true, client: { timeoutMs: 2_000, deadlineMs: 4_000 } });
afterAll(() => {
  expect(emitted.some((e) => e.includes('"token"'))).toBe(true);
  expect(findLeaks()).toEqual([]);
});

/** A BFF on a real socket in front of the real emulator, through the real client. */
async function startBff(overrides: Partial<BffAppOptions> = {}, apiToken = API_TOKEN, clientOptions: Parameters<typeof emu.start>[2] = {}) {
  const bff = await emu.start(overrides, apiToken, clientOptions);
  const post = (path: string, jwt: string, body: unknown = {}) => bff.post(path, { authorization: `Bearer ${jwt}`, origin: bff.url }, body);
  return {
    url: bff.url,
    logs: bff.logs,
    getToken: (jwt: string) => post('/embed/token', jwt),
    rotate: (jwt: string, token: string) => post('/embed/token/rotate', jwt, { token }),
  };
}

const tokenOf = (res: { body: unknown }) => (res.body as { token: string }).token;
const globex = { org_id: 'globex', org_name: 'Globex', embed_properties: { region: 'US', plan: 'basic' } };

describe.each(UPSTREAM_APIS)('BFF over a socket against the emulator, client speaking the %s API', (api) => {
  const start: typeof startBff = (overrides, apiToken, clientOptions) => startBff(overrides, apiToken, { api, ...clientOptions });

  it('speaks the chosen API on the wire: its routes, methods and auth header', async () => {
    const sent: string[] = [];
    const nodeTransport = createNodeTransport();
    const transport: Transport = (request) => {
      sent.push(
        `${request.method} ${new URL(request.url).pathname} ${Object.keys(request.headers)
          .filter((h) => h.endsWith('Authorization'))
          .join()}`,
      );
      return nodeTransport(request);
    };
    try {
      const bff = await start({}, API_TOKEN, { transport });
      const jwt = await session();
      const t0 = tokenOf(await bff.getToken(jwt));
      emu.emulator.expireToken(t0);
      expect((await bff.rotate(jwt, t0)).status).toBe(200);
      expect(sent).toEqual(
        api === 'explo-customer'
          ? ['POST /api/create_customer/ Explo-Authorization', 'POST /api/refresh_customer_token/ Explo-Authorization']
          : ['GET /api/user Authorization', 'POST /api/user Authorization'],
      );
    } finally {
      nodeTransport.close();
    }
  });

  it('hands out a working token and nothing else: exactly { token, expiresAt, serverTime }', async () => {
    const bff = await start({ tokenTtlSeconds: 900 });
    const before = Date.now();
    const res = await bff.getToken(await session());
    expect(res.status).toBe(200);
    expect(Object.keys(res.body as object).sort()).toEqual(['expiresAt', 'serverTime', 'token']);
    const body = res.body as { token: string; expiresAt: number; serverTime: number };
    const after = Date.now();
    // First seen while the request was in flight: expiresAt is that moment plus the TTL.
    expect(body.expiresAt).toBeGreaterThanOrEqual(before + 900_000);
    expect(body.expiresAt).toBeLessThanOrEqual(body.serverTime + 900_000);
    expect(body.serverTime).toBeGreaterThanOrEqual(before);
    expect(body.serverTime).toBeLessThanOrEqual(after);
    expect(emu.emulator.resolveToken(body.token)).toMatchObject({
      name: 'Acme Corp',
      providedId: 'acme',
      properties: acme.embed_properties,
      environment: 'Customer',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('makes exactly one get-or-create for a burst of concurrent first requests of one group', async () => {
    const bff = await start();
    emu.emulator.setFaults({ latencyMs: 100 });
    const jwts = await Promise.all(Array.from({ length: 25 }, (_, i) => session({ ...acme, sub: `user-${i}` })));
    const results = await Promise.all(jwts.map((jwt) => bff.getToken(jwt)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(new Set(results.map(tokenOf)).size).toBe(1);
    expect(emu.emulator.stats().requests).toEqual({ getOrCreate: 1, update: 0, rotate: 0, generateJwt: 0 });
  });

  it('makes G calls for N requests over G groups', async () => {
    const bff = await start();
    emu.emulator.setFaults({ latencyMs: 50 });
    const G = 5;
    const jwts = await Promise.all(Array.from({ length: G }, (_, g) => session({ org_id: `org-${g}`, org_name: `Org ${g}`, embed_properties: { g } })));
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => bff.getToken(jwts[i % G]!)));
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(emu.emulator.stats()).toEqual({ requests: { getOrCreate: G, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: G });
  });

  it('syncs drift: changed properties are pushed with update before the token is handed out', async () => {
    const bff = await start();
    const first = await bff.getToken(await session());
    const changed = { ...acme, embed_properties: { region: 'APAC', plan: 'enterprise' } };
    const second = await bff.getToken(await session(changed));
    expect(tokenOf(second)).toBe(tokenOf(first));
    expect(emu.emulator.stats().requests).toEqual({ getOrCreate: 2, update: 1, rotate: 0, generateJwt: 0 });
    expect(emu.emulator.resolveToken(tokenOf(second))?.properties).toEqual({ region: 'APAC', plan: 'enterprise' });
  });

  it('rotates for the holder, answers a stale holder with the current token, and never touches another group', async () => {
    const bff = await start();
    const acmeJwt = await session();
    const globexJwt = await session(globex);
    const t0 = tokenOf(await bff.getToken(acmeJwt));
    const g0 = tokenOf(await bff.getToken(globexJwt));

    const rotated = await bff.rotate(acmeJwt, t0);
    const t1 = tokenOf(rotated);
    expect(t1).not.toBe(t0);
    expect(emu.emulator.resolveToken(t1)?.providedId).toBe('acme');
    expect(emu.emulator.resolveToken(t0)).toBeUndefined();

    const stale = await bff.rotate(acmeJwt, t0);
    expect(tokenOf(stale)).toBe(t1);
    expect(emu.emulator.stats().requests.rotate).toBe(1);

    const intruder = await bff.rotate(globexJwt, t1);
    expect(tokenOf(intruder)).toBe(g0);
    expect(emu.emulator.stats().requests.rotate).toBe(1);
    expect(emu.emulator.resolveToken(t1)?.providedId).toBe('acme');
  });

  it('answers 429 with Retry-After to the holder of a token the vendor expired right after a rotation, then rotates', async () => {
    let t = Date.now();
    const bff = await start({ now: () => t });
    const jwt = await session();
    const t0 = tokenOf(await bff.getToken(jwt));
    const t1 = tokenOf(await bff.rotate(jwt, t0));
    expect(emu.emulator.expireToken(t1)).toBe(true);

    t += 3_200;
    const early = await bff.rotate(jwt, t1);
    expect(early.status).toBe(429);
    expect(early.body).toMatchObject({ error: { code: 'rate_limited', retryable: true } });
    expect(early.headers.get('retry-after')).toBe('7');
    expect(emu.emulator.stats().requests.rotate).toBe(1);

    t += 6_800;
    const after = await bff.rotate(jwt, t1);
    expect(after.status).toBe(200);
    const t2 = tokenOf(after);
    expect(t2).not.toBe(t1);
    expect(emu.emulator.resolveToken(t2)?.providedId).toBe('acme');
    expect(emu.emulator.stats().requests.rotate).toBe(2);
  });

  it('refuses loudly when the API token belongs to the other environment (or, on the Customer API, when no environment is stated)', async () => {
    const bff = await start({ expectEnvironment: 'Customer' }, TESTING_API_TOKEN);
    const res = await bff.getToken(await session());
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
    // The Customer API never states Customer/Testing, so the check fails closed there.
    const logged = api === 'explo-customer' ? 'environment unknown' : 'environment mismatch';
    expect(bff.logs.lines.some((l) => l.includes(logged))).toBe(true);
  });

  it.each<[string, FaultSettings, number, string]>([
    ['latency beyond the client timeout', { latencyMs: 1_500 }, 504, 'upstream_timeout'],
    ['HTTP 503', { serverErrorRate: 1 }, 503, 'upstream_unavailable'],
    ['429 with Retry-After', { rateLimitRate: 1, retryAfterSeconds: 7 }, 429, 'rate_limited'],
    ['success: 0', { failureRate: 1 }, 502, 'upstream_error'],
    ['a malformed body', { malformedRate: 1 }, 502, 'upstream_error'],
    ['a dropped connection', { dropRate: 1 }, 503, 'upstream_unavailable'],
  ])('maps %s (%j) to %i %s', async (_, faults, status, code) => {
    const bff = await start({}, API_TOKEN, { maxAttempts: 1, timeoutMs: 300, deadlineMs: 1_000 });
    emu.emulator.setFaults(faults);
    const res = await bff.getToken(await session());
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { code } });
    if (code === 'rate_limited') expect(res.headers.get('retry-after')).toBe('7');
    // Every retryable 5xx tells the browser when to come back (a dropped connection or a 503
    // without a Retry-After of the vendor's: 1 s).
    if (status >= 500 && code !== 'upstream_error') expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it.each<[string, FaultSettings]>([
    ['dropped after it rotated', { dropRate: 1, operations: ['rotate'] }],
    ['answered with a malformed body after it rotated', { malformedRate: 1, operations: ['rotate'] }],
  ])('recovers a rotation whose answer was %s by reading the current token', async (_, faults) => {
    const bff = await start({}, API_TOKEN, { maxAttempts: 1, timeoutMs: 1_000, deadlineMs: 2_000 });
    const jwt = await session();
    const t0 = tokenOf(await bff.getToken(jwt));
    emu.emulator.setFaults(faults);
    const res = await bff.rotate(jwt, t0);
    expect(res.status).toBe(200);
    const t1 = tokenOf(res);
    expect(t1).not.toBe(t0);
    expect(emu.emulator.resolveToken(t1)?.providedId).toBe('acme');
    expect(emu.emulator.resolveToken(t0)).toBeUndefined();
    expect(emu.emulator.stats().requests).toMatchObject({ rotate: 1, getOrCreate: 2 });
    emu.emulator.setFaults({});
    expect(tokenOf(await bff.getToken(jwt))).toBe(t1);
  });

  it('reports a rotation the vendor refused (success: 0) once get-or-create shows the token is still current, without retrying it', async () => {
    const bff = await start({}, API_TOKEN, { maxAttempts: 1 });
    const jwt = await session();
    const t0 = tokenOf(await bff.getToken(jwt));
    emu.emulator.setFaults({ failureRate: 1, operations: ['rotate'] });
    const res = await bff.rotate(jwt, t0);
    expect(res.status).toBe(502);
    expect(emu.emulator.stats().requests).toMatchObject({ rotate: 1, getOrCreate: 2 });
    expect(emu.emulator.resolveToken(t0)?.providedId).toBe('acme');
  });

  it('repairs the rotation that lost its race: two processes that cannot share a store rotate the same token, the vendor rotates once, both answer its token', async () => {
    // Two processes, each with its own store: as two BFFs are while their Redis is away.
    const [a, b] = [await start(), await start()];
    const jwt = await session();
    const t0 = tokenOf(await a.getToken(jwt));
    expect(tokenOf(await b.getToken(jwt))).toBe(t0);
    const before = emu.emulator.stats().requests;
    const fromA = await a.rotate(jwt, t0);
    const fromB = await b.rotate(jwt, t0);
    expect([fromA.status, fromB.status]).toEqual([200, 200]);
    const t1 = tokenOf(fromA);
    expect(tokenOf(fromB)).toBe(t1);
    expect(emu.emulator.resolveToken(t1)?.providedId).toBe('acme');
    // B's rotate of the dead token was refused (unknown_token), and one get-or-create named t1.
    const after = emu.emulator.stats().requests;
    expect(after.rotate - before.rotate).toBe(2);
    expect(after.getOrCreate - before.getOrCreate).toBe(1);
    expect(tokenOf(await b.getToken(jwt))).toBe(t1);
  });
});
