import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { API_TOKEN, captureLogs, findLeaks, record, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { functionUrlEvent, httpApiEvent, restApiEvent, type HttpRequestShape } from '../../test/support/lambda-events.js';
import { createLambdaHandler, type LambdaHandler, type LambdaHttpResult } from './index.js';

const redisTool = redisServerTool();
const customer = (id: string) => session({ org_id: id, org_name: `Customer ${id}`, embed_properties: { region: 'EU' } });
const json = (result: LambdaHttpResult) => JSON.parse(result.body) as { token?: string; error?: { code: string; message: string } };
/** A token route request; `jwt` is the session cookie the integrator's login set. */
const tokenRoute = ({ jwt, ...shape }: Partial<HttpRequestShape> & { jwt?: string }): HttpRequestShape => ({
  path: '/embed/token',
  body: '{}',
  ...(jwt && { cookies: [`__Host-session=${jwt}`] }),
  ...shape,
  headers: { 'content-type': 'application/json', ...shape.headers },
});

describe.skipIf(!redisTool.available)('the BFF as an AWS Lambda function (API Gateway / function URL events, Redis store)', () => {
  let redis: RedisServer;
  let emu: RunningEmulator;
  const { logger, lines } = captureLogs();
  const env = (more: Record<string, string | undefined> = {}) => ({
    EMBED_UPSTREAM_URL: emu.url,
    EMBED_API_TOKEN: API_TOKEN,
    EMBED_SESSION_SECRET: SESSION_SECRET,
    EMBED_SESSION_COOKIE: '__Host-session',
    EMBED_REDIS_URL: redis.url,
    EMBED_UPSTREAM_RATE: '0',
    ...more,
  });
  /** One execution environment: a handler of its own (its own app, client and Redis connection). */
  const environment = (more: Record<string, string | undefined> = {}, report?: (line: string) => void): LambdaHandler =>
    createLambdaHandler({ env: env(more), app: () => ({ logger }), ...(report && { report }) });
  const invoke = async (handler: LambdaHandler, event: unknown) => {
    const result = await handler(event as never, {});
    await record(new Response(result.body, { status: result.statusCode, headers: result.headers }));
    return result;
  };

  beforeAll(async () => {
    redis = await startRedisServer(redisTool.path);
    emu = await startEmulator({ port: 0, apiKeys: [{ token: API_TOKEN, environment: 'Customer' }] });
  });
  afterAll(async () => {
    expect(findLeaks()).toEqual([]);
    await emu?.close();
    await redis?.dispose();
  });
  beforeEach(() => emu.emulator.setFaults({}));

  it('serves a cookie session from a function URL event and a base64 body, and rotates, each event shape seeing the same group', async () => {
    const lambda = environment();
    const jwt = await customer('acme');
    const cookies = ['theme=dark', `__Host-session=${jwt}`];
    const first = await invoke(lambda, functionUrlEvent(tokenRoute({ cookies })));
    expect(first.statusCode).toBe(200);
    expect(first.headers).toMatchObject({ 'cache-control': 'no-store', 'content-type': expect.stringMatching(/^application\/json/) });
    expect(first.isBase64Encoded).toBe(false);
    const { token } = json(first);
    expect(token).toMatch(/^[A-Za-z0-9._~-]+$/);

    // Headers as a REST API passes them (the client's case, the Cookie header), and an HTTP API's base64 body.
    const rest = await invoke(
      lambda,
      restApiEvent({
        path: '/embed/token',
        cookies,
        headers: { 'Content-Type': 'application/json', Origin: `https://r3pmxmplak.execute-api.eu-west-1.amazonaws.com`, 'Sec-Fetch-Site': 'same-origin' },
        body: '{}',
      }),
    );
    expect(json(rest).token).toBe(token);
    const rotated = await invoke(lambda, httpApiEvent(tokenRoute({ path: '/embed/token/rotate', cookies, body: JSON.stringify({ token }), base64: true })));
    expect(rotated.statusCode).toBe(200);
    expect(json(rotated).token).not.toBe(token);
    // Another execution environment (the Redis store is what they share) hands a stale holder the current token.
    const other = await invoke(environment(), functionUrlEvent(tokenRoute({ path: '/embed/token/rotate', jwt, body: JSON.stringify({ token }) })));
    expect(json(other).token).toBe(json(rotated).token);
    expect(emu.emulator.stats().requests).toMatchObject({ getOrCreate: 1, rotate: 1 });
  });

  it('makes one vendor call per new customer for concurrent first visits spread over execution environments', async () => {
    emu.emulator.reset();
    const environments = Array.from({ length: 4 }, () => environment());
    const jwts = await Promise.all(Array.from({ length: 10 }, (_, i) => customer(`burst-${i}`)));
    const results = await Promise.all(
      jwts.flatMap((jwt, i) =>
        environments.map((lambda, k) => invoke(lambda, (k % 2 ? httpApiEvent : functionUrlEvent)(tokenRoute({ jwt, base64: (i + k) % 2 === 0 })))),
      ),
    );
    expect(results.map((r) => r.statusCode)).toEqual(results.map(() => 200));
    for (let i = 0; i < jwts.length; i++) expect(new Set(results.slice(i * 4, i * 4 + 4).map((r) => json(r).token)).size).toBe(1);
    expect(emu.emulator.stats().requests.getOrCreate).toBe(10);
  });

  it('refuses with the BFF’s answers: no session 401, a foreign origin 403, no JSON 415, a big base64 body 413', async () => {
    const lambda = environment();
    const jwt = await customer('globex');
    expect((await invoke(lambda, functionUrlEvent(tokenRoute({})))).statusCode).toBe(401);
    expect((await invoke(lambda, functionUrlEvent(tokenRoute({ cookies: [`__Host-session=${jwt.slice(0, -3)}AAA`] })))).statusCode).toBe(401);
    const foreign = await invoke(lambda, functionUrlEvent(tokenRoute({ jwt, headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })));
    expect(foreign.statusCode).toBe(403);
    expect(foreign.headers?.['access-control-allow-origin']).toBeUndefined();
    expect((await invoke(lambda, functionUrlEvent(tokenRoute({ jwt, headers: { 'content-type': 'text/plain' } })))).statusCode).toBe(415);
    const big = await invoke(lambda, httpApiEvent(tokenRoute({ jwt, body: JSON.stringify({ pad: 'x'.repeat(20_000) }), base64: true })));
    expect(big.statusCode).toBe(413);
    // The function URL's own origin (https + domainName) is same-origin, as a browser on it says.
    const domain = 'a1b2c3d4e5f6g7h8i9j0.lambda-url.eu-west-1.on.aws';
    const same = await invoke(lambda, functionUrlEvent(tokenRoute({ jwt, headers: { origin: `https://${domain}` } })));
    expect(same.statusCode).toBe(200);
  });

  it('answers a malformed event 400 with the BFF’s error body, never the adapter’s text or a crash', async () => {
    const lambda = environment();
    const good = functionUrlEvent(tokenRoute({ jwt: await customer('acme') }));
    const context = good.requestContext as Record<string, unknown>;
    const malformed: [string, unknown][] = [
      ['not an object', 'GET /'],
      ['null', null],
      ['no path', { ...good, rawPath: undefined, path: undefined }],
      ['no method', { ...good, requestContext: { ...context, http: { path: '/embed/token' } } }],
      ['bad base64', { ...good, body: 'not base64!', isBase64Encoded: true }],
      ['headers not strings', { ...good, headers: { 'content-type': ['application/json'] } }],
      ['cookies not strings', { ...good, cookies: [1] }],
      ['a hostile host', { ...good, requestContext: { ...context, domainName: 'evil.example/../x' } }],
      ['a body object', { ...good, body: { token: 'x' } }],
    ];
    for (const [what, event] of malformed) {
      const result = await invoke(lambda, event);
      expect(result.statusCode, what).toBe(400);
      expect(json(result).error?.code, what).toBe('bad_request');
    }
  });

  it('reports a dead vendor as 502/503, never 401, and serves from the vendor while Redis is down', async () => {
    const dead = environment({ EMBED_UPSTREAM_URL: 'http://127.0.0.1:1' });
    const jwt = await customer('initech');
    const down = await invoke(dead, functionUrlEvent(tokenRoute({ jwt })));
    expect([502, 503]).toContain(down.statusCode);
    expect(json(down).error?.code).toMatch(/^upstream_/);

    const lambda = environment();
    const served = await invoke(lambda, functionUrlEvent(tokenRoute({ jwt })));
    await redis.stop();
    try {
      const degraded = await invoke(lambda, functionUrlEvent(tokenRoute({ jwt })));
      expect(degraded.statusCode).toBe(200);
      expect(json(degraded).token).toBe(json(served).token);
      expect((await invoke(lambda, functionUrlEvent({ method: 'GET', path: '/readyz' }))).statusCode).toBe(503);
    } finally {
      await redis.start();
    }
  });

  it('speaks both vendor APIs: the user group service (a GET with a body, over Node’s HTTP) and the Customer API', async () => {
    emu.emulator.reset();
    const jwt = await customer('hooli');
    expect((await invoke(environment({ EMBED_KEY_PREFIX: 'ugs' }), functionUrlEvent(tokenRoute({ jwt })))).statusCode).toBe(200);
    expect(
      (await invoke(environment({ EMBED_UPSTREAM_API: 'explo-customer', EMBED_KEY_PREFIX: 'explo' }), functionUrlEvent(tokenRoute({ jwt })))).statusCode,
    ).toBe(200);
    expect(emu.emulator.stats().requests.getOrCreate).toBe(2);
  });

  it('refuses its configuration at the first invocation, one line per problem, reported once, secrets never quoted', async () => {
    const reported: string[] = [];
    const lambda = environment({ EMBED_REDIS_URL: undefined, EMBED_PORT: '8787', EMBED_SESSION_SECRET: 'LEAKCHECK-short' }, (line) => reported.push(line));
    const event = functionUrlEvent(tokenRoute({ jwt: await customer('acme') }));
    for (let i = 0; i < 2; i++) {
      const result = await invoke(lambda, event);
      expect(result.statusCode).toBe(500);
      expect(json(result)).toEqual({ error: { code: 'internal', message: 'the service is not configured', retryable: false } });
    }
    expect(reported).toEqual([
      'config: EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)',
      'config: EMBED_REDIS_URL is required on Lambda: execution environments share no memory, so the locks, rate limits and vendor budget need Redis',
      expect.stringMatching(/^config: EMBED_PORT is not used on Lambda: a Lambda function has no listener of its own/),
    ]);
    expect(reported.join('\n')).not.toMatch(/LEAKCHECK/);
    expect(lines.join('\n')).not.toMatch(/LEAKCHECK/);
  });
});
