import { afterAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { UserGroupNetworkError } from '@embedded-dashboard/client';
import { isTokenResponse } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { acme, API_TOKEN, call, captureLogs, emitted, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { renderInitialToken, type InitialToken } from './initial-token.js';

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const logs = captureLogs();
  const app = createBffApp({ upstream, session: { secret: SESSION_SECRET, cookie: 'sid' }, logger: logs.logger, secrets: [API_TOKEN], ...overrides });
  return { app, upstream };
}

/** What the element reads: the JSON inside the script element. */
function scriptBody(first: InitialToken): unknown {
  emitted.push(first.html);
  const match = /^<script type="application\/json">([^<]*)<\/script>$/.exec(first.html);
  if (!match) throw new Error(`not one JSON script element: ${first.html.slice(0, 200)}`);
  return JSON.parse(match[1]!);
}

const page = (headers: Record<string, string>) => new Request('http://app.example/dashboard', { headers });

afterAll(() => expect(findLeaks()).toEqual([]));

describe('renderInitialToken', () => {
  it('renders the token the token route gives the same session, with headers no shared cache may keep', async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const first = await renderInitialToken(page({ cookie: `theme=dark; sid=${jwt}` }), { bff: app });
    expect(first.headers).toEqual({ 'cache-control': 'private, no-store', vary: 'Cookie, Authorization' });
    const body = scriptBody(first);
    expect(isTokenResponse(body)).toBe(true);
    expect(body).toEqual(first.response);
    const viaRoute = await call(app, '/embed/token', tokenRequest(undefined, {}, { cookie: `sid=${jwt}` }));
    expect((viaRoute.body as { token: string }).token).toBe(first.response!.token);
    expect(first.response!.token).toBe(upstream.groups.get('acme')!.token);
  });

  it("reads a Node request's headers (IncomingMessage shape) and an Authorization header", async () => {
    const { app, upstream } = setup();
    const jwt = await session();
    const node = await renderInitialToken({ headers: { cookie: [`sid=${jwt}`], host: 'app.example' } }, { bff: app });
    expect(node.response?.token).toBe(upstream.groups.get('acme')!.token);
    // A BFF reading the session from Authorization (no cookie configured).
    const bearerBff = setup({ session: { secret: SESSION_SECRET } });
    const bearer = await renderInitialToken(page({ authorization: `Bearer ${jwt}` }), { bff: bearerBff.app });
    expect(bearer.response?.token).toBe(bearerBff.upstream.groups.get('acme')!.token);
  });

  it("gives each customer its own group's token, never another's", async () => {
    const { app, upstream } = setup();
    const [a, b] = await Promise.all([
      renderInitialToken(page({ cookie: `sid=${await session()}` }), { bff: app }),
      renderInitialToken(page({ cookie: `sid=${await session({ ...acme, org_id: 'globex', org_name: 'Globex' })}` }), { bff: app }),
    ]);
    expect(a.response!.token).toBe(upstream.groups.get('acme')!.token);
    expect(b.response!.token).toBe(upstream.groups.get('globex')!.token);
    expect(a.response!.token).not.toBe(b.response!.token);
  });

  it('renders nothing, without asking the vendor, for a page request without a session', async () => {
    const { app, upstream } = setup();
    const first = await renderInitialToken(page({ 'x-other': '1' }), { bff: app });
    expect(first).toEqual({ response: undefined, html: '', headers: { 'cache-control': 'private, no-store', vary: 'Cookie, Authorization' } });
    expect(upstream.calls).toEqual({ getOrCreate: 0, update: 0, rotate: 0 });
  });

  it('renders nothing for an expired, forged or hostile session, and never throws', async () => {
    const { app, upstream } = setup();
    const sessions = [
      await session(acme, { expSeconds: -60 }),
      await session(acme, { key: new TextEncoder().encode('another-secret-another-secret-0123456789') }),
      '</script><script>alert(1)</script>',
      'x'.repeat(100_000),
    ];
    for (const sid of sessions) {
      const first = await renderInitialToken(page({ cookie: `sid=${sid}` }), { bff: app });
      expect(first.html).toBe('');
      expect(first.response).toBeUndefined();
    }
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it('renders nothing while the vendor is down or hanging: the page renders and the element fetches later', async () => {
    const { app, upstream } = setup();
    const sid = `sid=${await session()}`;
    upstream.failNext.getOrCreate = [new UserGroupNetworkError('refused')];
    expect((await renderInitialToken(page({ cookie: sid }), { bff: app })).html).toBe('');
    let release = () => {};
    upstream.gate = new Promise<void>((resolve) => (release = resolve));
    const started = Date.now();
    expect((await renderInitialToken(page({ cookie: sid }), { bff: app, timeoutMs: 50 })).html).toBe('');
    expect(Date.now() - started).toBeLessThan(5_000);
    release();
  });

  it('renders nothing when the answer is not a token response (a wrong BFF, a proxy page, a hostile token)', async () => {
    const answers = [
      new Response('<html>login</html>', { status: 200, headers: { 'content-type': 'text/html' } }),
      Response.json({ token: '</script><script>alert(1)</script>', expiresAt: null, serverTime: 1 }),
      Response.json({ error: { code: 'rate_limited', message: 'later', retryable: true } }, { status: 429 }),
      new Response(null, { status: 302, headers: { location: '/login' } }),
    ];
    for (const answer of answers) {
      const first = await renderInitialToken(page({ cookie: 'sid=x' }), { bff: { fetch: () => answer } });
      expect(first.html).toBe('');
    }
    const failing = await renderInitialToken(page({ cookie: 'sid=x' }), {
      bff: {
        fetch: () => {
          throw new Error('boom');
        },
      },
    });
    expect(failing.html).toBe('');
  });

  it('forwards only the session headers, to the token route under basePath, without an Origin', async () => {
    const seen: Request[] = [];
    const body = { token: 'ugt-1', expiresAt: Date.now() + 3_600_000, serverTime: Date.now() };
    const bff = { fetch: (request: Request) => (seen.push(request), Response.json(body)) };
    const first = await renderInitialToken(page({ cookie: 'sid=s', authorization: 'Bearer t', origin: 'https://evil.example', 'x-forwarded-for': '1.2.3.4' }), {
      bff,
      basePath: '/api/embed',
    });
    expect(scriptBody(first)).toEqual(body);
    const [request] = seen;
    expect(new URL(request!.url).pathname).toBe('/api/embed/token');
    expect(request!.method).toBe('POST');
    expect([...request!.headers.keys()].sort()).toEqual(['authorization', 'content-type', 'cookie']);
  });

  it('asks a BFF in another process by its URL, over a real socket', async () => {
    const { app } = setup();
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const first = await renderInitialToken(page({ cookie: `sid=${await session()}` }), { bff: url });
      expect(isTokenResponse(scriptBody(first))).toBe(true);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
