import { afterAll, describe, expect, it } from 'vitest';
import { Hono } from 'hono';
import {
  UserGroupAbortedError,
  UserGroupApiFailureError,
  UserGroupDeadlineError,
  UserGroupHttpStatusError,
  UserGroupMalformedResponseError,
  UserGroupNetworkError,
  UserGroupRateLimitedError,
  UserGroupTimeoutError,
} from '@embedded-dashboard/client';
import { isBffErrorBody } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { createEmbedRoutes } from './embed-routes.js';
import { createMetricsApp } from './metrics-routes.js';
import { API_TOKEN, call, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';

const ORIGIN = 'http://localhost';

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  const app = createBffApp({ upstream, session: { secret: SESSION_SECRET }, logger: logs.logger, secrets: [API_TOKEN], ...overrides });
  return { app, upstream, logs };
}

const post = (jwt: string | undefined, init: { body?: string; headers?: Record<string, string> } = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(jwt ? { authorization: `Bearer ${jwt}` } : {}), ...init.headers },
  body: init.body,
});

afterAll(() => expect(findLeaks()).toEqual([]));

describe('origin and CSRF checks', () => {
  it('allows same-origin requests and requests without Origin', async () => {
    const { app } = setup();
    const jwt = await session();
    expect((await call(app, `${ORIGIN}/embed/token`, post(jwt, { headers: { origin: ORIGIN } }))).status).toBe(200);
    expect((await call(app, '/embed/token', post(jwt))).status).toBe(200);
  });

  it.each(['https://evil.example', 'null', 'http://localhost:8080', 'https://localhost'])(
    'refuses Origin %s with 403 before reading the session',
    async (origin) => {
      const { app, upstream } = setup();
      const res = await call(app, `${ORIGIN}/embed/token`, post(await session(), { headers: { origin } }));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: { code: 'forbidden', retryable: false } });
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      expect(upstream.calls.getOrCreate).toBe(0);
    },
  );

  it('allows configured origins with CORS headers and answers their preflight', async () => {
    const { app } = setup({ allowedOrigins: ['https://app.example'] });
    const res = await call(app, `${ORIGIN}/embed/token`, post(await session(), { headers: { origin: 'https://app.example' } }));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const preflight = await call(app, `${ORIGIN}/embed/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/content-type/);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/traceparent, tracestate/);
    const evil = await call(app, `${ORIGIN}/embed/token`, { method: 'OPTIONS', headers: { origin: 'https://evil.example' } });
    expect(evil.status).toBe(403);
  });

  it.each([undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp'])(
    'refuses Content-Type %s with 415',
    async (type) => {
      const { app } = setup();
      const headers: Record<string, string> = { authorization: `Bearer ${await session()}` };
      if (type) headers['content-type'] = type;
      const res = await call(app, '/embed/token', { method: 'POST', headers, body: '{}' });
      expect(res.status).toBe(415);
      expect(res.body).toMatchObject({ error: { code: 'bad_request' } });
    },
  );

  it('accepts application/json with a charset', async () => {
    const { app } = setup();
    const res = await call(app, '/embed/token', post(await session(), { body: '{}', headers: { 'content-type': 'Application/JSON; charset=utf-8' } }));
    expect(res.status).toBe(200);
  });
});

describe('request bodies', () => {
  it('accepts an empty body or {} on /token', async () => {
    const { app } = setup();
    const jwt = await session();
    expect((await call(app, '/embed/token', post(jwt))).status).toBe(200);
    expect((await call(app, '/embed/token', post(jwt, { body: '{}' }))).status).toBe(200);
  });

  it.each([
    ['invalid JSON', '{', 400],
    ['an array', '[]', 400],
    ['a string', '"x"', 400],
    ['null', 'null', 400],
    ['a field naming a group', '{"user_group_id":"globex"}', 400],
    ['invalid UTF-8', '\uDC00', 400],
  ])('refuses %s on /token', async (_, body, status) => {
    const { app, upstream } = setup();
    const res = await call(app, '/embed/token', post(await session(), { body }));
    expect(res.status).toBe(status);
    expect(isBffErrorBody(res.body)).toBe(true);
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it.each([
    ['nothing', undefined],
    ['{}', '{}'],
    ['an empty token', '{"token":""}'],
    ['a number token', '{"token":5}'],
    ['an extra field', '{"token":"t","group":"globex"}'],
    ['a huge token', JSON.stringify({ token: 'x'.repeat(3000) })],
  ])('refuses %s on /token/rotate with 400', async (_, body) => {
    const { app, upstream } = setup();
    const res = await call(app, '/embed/token/rotate', post(await session(), { body }));
    expect(res.status).toBe(400);
    expect(upstream.calls.rotate).toBe(0);
  });

  it('refuses bodies over the limit with 413, declared or streamed', async () => {
    const { app } = setup({ bodyLimitBytes: 64 });
    const jwt = await session();
    const big = JSON.stringify({ token: 'x'.repeat(100) });
    expect((await call(app, '/embed/token/rotate', post(jwt, { body: big }))).status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new TextEncoder().encode('          '));
        controller.close();
      },
    });
    const res = await call(app, '/embed/token', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After past the per-session limit, per route', async () => {
    const { app } = setup({ rateLimit: { token: { limit: 2, windowSeconds: 60 }, rotate: { limit: 1, windowSeconds: 30 } } });
    const jwt = await session();
    expect((await call(app, '/embed/token', tokenRequest(jwt))).status).toBe(200);
    const { token } = (await call(app, '/embed/token', tokenRequest(jwt))).body as { token: string };
    const limited = await call(app, '/embed/token', tokenRequest(jwt));
    expect(limited.status).toBe(429);
    expect(limited.body).toMatchObject({ error: { code: 'rate_limited', retryable: true } });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await call(app, '/embed/token', tokenRequest(await session({ org_id: 'other', org_name: 'O', embed_properties: {} })))).status).toBe(200);
    expect((await call(app, '/embed/token/rotate', tokenRequest(jwt, { token }))).status).toBe(200);
    expect((await call(app, '/embed/token/rotate', tokenRequest(jwt, { token }))).status).toBe(429);
  });
});

describe('upstream failures map to the §4 codes', () => {
  it.each([
    [new UserGroupTimeoutError('timed out'), 504, 'upstream_timeout'],
    [new UserGroupDeadlineError('deadline'), 504, 'upstream_timeout'],
    [new UserGroupNetworkError('ECONNRESET'), 503, 'upstream_unavailable'],
    [new UserGroupAbortedError('aborted'), 503, 'upstream_unavailable'],
    [new UserGroupHttpStatusError('HTTP 503', { status: 503 }), 503, 'upstream_unavailable'],
    [new UserGroupHttpStatusError('HTTP 500', { status: 500 }), 502, 'upstream_error'],
    [new UserGroupHttpStatusError('HTTP 401', { status: 401 }), 502, 'upstream_error'],
    [new UserGroupApiFailureError('success: 0'), 502, 'upstream_error'],
    [new UserGroupMalformedResponseError('not JSON'), 502, 'upstream_error'],
    [new UserGroupRateLimitedError('429', { status: 429, retryAfterMs: 7_500 }), 429, 'rate_limited'],
    [new TypeError(`boom with ${API_TOKEN} inside`), 500, 'internal'],
  ])('%s → %i %s', async (error, status, code) => {
    const { app, upstream, logs } = setup();
    upstream.failNext.getOrCreate = [error];
    const res = await call(app, '/embed/token', tokenRequest(await session()));
    expect(res.status).toBe(status);
    expect(res.body).toMatchObject({ error: { code } });
    expect(res.headers.get('cache-control')).toBe('no-store');
    if (code === 'rate_limited') expect(res.headers.get('retry-after')).toBe('8');
    expect(logs.lines.some((l) => l.includes('"level":"error"') && l.includes('request failed'))).toBe(status >= 500);
  });
});

describe('every response', () => {
  it('logs successful requests at debug only, errors at info, each line with its request id', async () => {
    const lines: string[] = [];
    const infoApp = createBffApp({
      upstream: new FakeUpstream(),
      session: { secret: SESSION_SECRET },
      logger: { info: (m, f) => lines.push(JSON.stringify({ level: 'info', msg: m, ...f })), warn: () => undefined, error: () => undefined },
    });
    const jwt = await session();
    expect((await call(infoApp, '/embed/token', tokenRequest(jwt, {}, { 'x-request-id': 'ok-1' }))).status).toBe(200);
    const refused = await call(infoApp, '/embed/token', tokenRequest(undefined));
    expect(refused.status).toBe(401);
    expect(lines.some((l) => l.includes('ok-1'))).toBe(false);
    const requestLines = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(requestLines).toEqual([expect.objectContaining({ status: 401, code: 'unauthenticated', requestId: refused.headers.get('x-request-id') })]);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('carries Cache-Control: no-store, and on errors the request id (a sane X-Request-Id is honoured)', async () => {
    const { app, logs } = setup({ exposeMetrics: true });
    const jwt = await session();
    const insane = { 'x-request-id': `bad id <script> ${'x'.repeat(80)}` };
    for (const path of ['/embed/token', '/healthz', '/readyz', '/metrics']) {
      const res = await call(app, path, path === '/embed/token' ? tokenRequest(jwt, {}, { 'x-request-id': 'req-123' }) : { headers: insane });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const sane = await call(app, '/embed/token', tokenRequest(undefined, {}, { 'x-request-id': 'req-401' }));
    expect(sane.headers.get('cache-control')).toBe('no-store');
    expect(sane.headers.get('x-request-id')).toBe('req-401');
    const generated = await call(app, '/nope', { headers: insane });
    expect(generated.headers.get('cache-control')).toBe('no-store');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const line = JSON.parse(logs.lines.find((l) => l.includes('req-123'))!);
    expect(line).toMatchObject({ level: 'debug', msg: 'request', requestId: 'req-123', method: 'POST', path: '/embed/token', status: 200 });
    expect(typeof line.durationMs).toBe('number');
    expect(JSON.parse(logs.lines.find((l) => l.includes('req-401'))!)).toMatchObject({ level: 'info', status: 401, code: 'unauthenticated' });
  });

  it('answers 404 in the error shape for unknown routes and methods', async () => {
    const { app } = setup();
    const res = await call(app, '/embed/token');
    expect(res.status).toBe(404);
    expect(isBffErrorBody(res.body)).toBe(true);
  });
});

describe('health and metrics', () => {
  it('serves /healthz, /readyz and, when asked, Prometheus /metrics from its own registry', async () => {
    const { app } = setup({ exposeMetrics: true });
    await call(app, '/embed/token', tokenRequest(await session()));
    await call(app, '/embed/token', tokenRequest(await session()));
    expect((await call(app, '/healthz')).body).toEqual({ status: 'ok' });
    expect((await call(app, '/readyz')).body).toEqual({ status: 'ready', store: 'ok' });
    const metrics = await call(app, '/metrics');
    expect(metrics.headers.get('content-type')).toMatch(/text\/plain/);
    expect(metrics.text).toMatch(/embed_bff_token_requests_total\{route="token",outcome="ok"\} 2/);
    expect(metrics.text).toMatch(/embed_bff_cache_lookups_total\{result="hit"\} 1/);
    expect(metrics.text).toMatch(/embed_bff_upstream_calls_total\{op="getOrCreate",outcome="ok"\} 1/);
    expect(metrics.text).toMatch(/embed_bff_upstream_duration_seconds_count\{op="getOrCreate"\} 1/);
    expect(metrics.text).not.toMatch(/process_cpu/);
  });

  it('leaves /metrics out by default', async () => {
    const { app } = setup();
    expect((await call(app, '/metrics')).status).toBe(404);
  });

  it('createMetricsApp serves the same metrics on its own app, no-store, and nothing else', async () => {
    const metrics = createBffMetrics();
    const { app } = setup({ metrics });
    await call(app, '/embed/token', tokenRequest(await session()));
    const internal = createMetricsApp(metrics);
    const res = await call(internal, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.text).toMatch(/embed_bff_token_requests_total\{route="token",outcome="ok"\} 1/);
    for (const [path, method] of [
      ['/embed/token', 'POST'],
      ['/healthz', 'GET'],
      ['/metrics', 'POST'],
    ] as const) {
      const other = await call(internal, path, { method });
      expect(other.status).toBe(404);
      expect(other.headers.get('cache-control')).toBe('no-store');
    }
  });
});

describe('createEmbedRoutes mounted in an integrator app', () => {
  it('serves the token routes under any path with its own error handling and no-store', async () => {
    const upstream = new FakeUpstream();
    const host = new Hono();
    host.get('/', (c) => c.text('home'));
    host.route('/api/embed', createEmbedRoutes({ upstream, session: { secret: SESSION_SECRET }, logger: captureLogs().logger }));
    const ok = await call(host, '/api/embed/token', tokenRequest(await session()));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('cache-control')).toBe('no-store');
    const refused = await call(host, '/api/embed/token', tokenRequest(undefined));
    expect(refused.status).toBe(401);
    expect(refused.headers.get('cache-control')).toBe('no-store');
    expect(isBffErrorBody(refused.body)).toBe(true);
    expect((await call(host, '/')).text).toBe('home');
  });
});
