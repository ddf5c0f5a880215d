import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DemoCustomer } from '../shared/customers.js';
import type { DemoControls } from './controls.js';
import { createHostApp } from './host-app.js';
import { SESSION_COOKIE, verifySession } from './session.js';
import { TokenLedger } from './token-ledger.js';

const secret = 's'.repeat(32);
const ORIGIN = 'http://127.0.0.1:5174';

function setUp() {
  const publicDir = mkdtempSync(join(tmpdir(), 'demo-pages-'));
  onTestFinished(() => rmSync(publicDir, { recursive: true, force: true }));
  for (const file of ['index.html', 'app.html', 'integrate.html']) writeFileSync(join(publicDir, file), `<!doctype html><title>${file}</title>`);
  const calls: string[] = [];
  let outage = false;
  const controls: DemoControls = {
    async expireCurrentToken(customer: DemoCustomer) {
      calls.push(`expire:${customer.id}`);
      return 'expired' as const;
    },
    setOutage(on) {
      outage = on;
      calls.push(`outage:${on}`);
    },
    outage: () => outage,
    vendorStats: () => ({ requests: { getOrCreate: 1, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 1 }),
  };
  const embed = new Hono();
  embed.post('/token', (c) => c.json({ token: `token-of-${c.req.header('Cookie')?.length ?? 0}`, expiresAt: null, serverTime: Date.now() }));
  embed.post('/token/rotate', (c) => c.json({ error: { code: 'unauthenticated', message: 'no', retryable: false } }, 401));
  const ledger = new TokenLedger();
  const app = createHostApp({
    session: { secret, ttlSeconds: 600 },
    controls,
    ledger,
    allowedOrigins: () => [ORIGIN],
    srcTemplateFor: () => 'http://localhost:9/iframe/{dashboard}',
    tokenUrl: '/embed/token',
    tokenTtlSeconds: 300,
    refreshMarginSeconds: null,
    embed: { basePath: '/embed', routes: embed },
    publicDir,
  });
  const signIn = async (customer = 'acme') => {
    const response = await app.request(`/login?customer=${customer}`);
    const cookie = response.headers.get('Set-Cookie') ?? '';
    return { response, cookie: cookie.split(';')[0] ?? '' };
  };
  const post = (path: string, body: string, headers: Record<string, string>) => app.request(path, { method: 'POST', body, headers });
  return { app, calls, ledger, signIn, post };
}

describe('the demo host app', () => {
  it('signs in with an HttpOnly, SameSite=Lax session cookie and redirects to /app', async () => {
    const { signIn } = setUp();
    const { response, cookie } = await signIn();
    expect(response.status).toBe(302);
    expect(response.headers.get('Location')).toBe('/app');
    const header = response.headers.get('Set-Cookie') ?? '';
    expect(header).toMatch(/HttpOnly/);
    expect(header).toMatch(/SameSite=Lax/);
    expect(header).toMatch(/Max-Age=600/);
    expect(header).not.toMatch(/Secure/);
    expect(await verifySession(cookie.slice(SESSION_COOKIE.length + 1), secret)).toBe('acme');
  });

  it.each(['', 'customer=', 'customer=unknown', 'customer=__proto__', 'customer=ACME', `customer=${'a'.repeat(10_000)}`, 'customer=%E0%A4%A'])(
    'refuses to sign in with %s',
    async (query) => {
      const { app } = setUp();
      const response = await app.request(`/login?${query}`);
      expect(response.status).toBe(400);
      expect(response.headers.get('Set-Cookie')).toBeNull();
      expect(response.headers.get('Content-Type')).toMatch(/^text\/html/);
      expect(await response.text()).toContain('<a href="/">sign-in page</a>');
    },
  );

  it('passes a known frame protocol on to /app, and nothing else', async () => {
    const { app } = setUp();
    const location = async (query: string) => (await app.request(`/login?customer=acme&${query}`)).headers.get('Location');
    expect(await location('protocol=explo-jwt')).toBe('/app?protocol=explo-jwt');
    expect(await location('protocol=explo')).toBe('/app?protocol=explo');
    for (const query of ['protocol=message', 'protocol=//evil.example', 'protocol=explo-jwt%26x%3D1', `protocol=${'x'.repeat(500)}`])
      expect(await location(query)).toBe('/app');
  });

  it('passes a chart id on with protocol=explo-jwt only, and nothing that is not a chart id', async () => {
    const { app } = setUp();
    const location = async (query: string) => (await app.request(`/login?customer=acme&${query}`)).headers.get('Location');
    expect(await location('protocol=explo-jwt&chart=revenue-by-month')).toBe('/app?protocol=explo-jwt&chart=revenue-by-month');
    expect(await location('protocol=explo&chart=revenue-by-month')).toBe('/app?protocol=explo');
    expect(await location('chart=revenue-by-month')).toBe('/app');
    for (const chart of ['', '../x', '%3Cimg%3E', 'a%26protocol%3Dexplo', 'x'.repeat(129)])
      expect(await location(`protocol=explo-jwt&chart=${chart}`)).toBe('/app?protocol=explo-jwt');
  });

  it('signs out by clearing the cookie', async () => {
    const { app } = setUp();
    for (const method of ['GET', 'POST']) {
      const response = await app.request('/logout', { method });
      expect(response.status).toBe(302);
      expect(response.headers.get('Location')).toBe('/');
      expect(response.headers.get('Set-Cookie')).toMatch(new RegExp(`^${SESSION_COOKIE}=;.*Max-Age=0`));
    }
  });

  it('serves /app only to a signed-in visitor', async () => {
    const { app, signIn } = setUp();
    const anonymous = await app.request('/app');
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get('Location')).toBe('/');
    const { cookie } = await signIn();
    const page = await app.request('/app', { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('app.html');
    expect(page.headers.get('Content-Security-Policy')).toBe("frame-ancestors 'none'");
    expect((await app.request('/', { headers: { Cookie: cookie } })).status).toBe(200);
    expect((await app.request('/integrate')).status).toBe(200);
    expect((await app.request('/assets/../../etc/passwd')).status).toBe(404);
  });

  it('tells the page who is signed in, and nobody else', async () => {
    const { app, signIn } = setUp();
    expect((await app.request('/api/session')).status).toBe(401);
    expect((await app.request('/api/session', { headers: { Cookie: `${SESSION_COOKIE}=forged.jwt.value` } })).status).toBe(401);
    const { cookie } = await signIn('globex');
    const response = await app.request('/api/session', { headers: { Cookie: cookie } });
    expect(response.headers.get('Cache-Control')).toBe('no-store');
    const body = (await response.json()) as { customer: { id: string }; srcTemplate: string; tokenUrl: string };
    expect(body.customer.id).toBe('globex');
    expect(body.srcTemplate).toBe('http://localhost:9/iframe/{dashboard}');
    expect(body.tokenUrl).toBe('/embed/token');
  });

  it('expires the token of the session customer, whatever the body says', async () => {
    const { calls, signIn, post } = setUp();
    const { cookie } = await signIn('acme');
    const response = await post('/api/token/expire', JSON.stringify({ customer: 'globex', token: 'x' }), {
      Cookie: cookie,
      'Content-Type': 'application/json',
      Origin: ORIGIN,
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ outcome: 'expired' });
    expect(calls).toEqual(['expire:acme']);
  });

  it('guards the state-changing API against CSRF and bad input', async () => {
    const { calls, signIn, post } = setUp();
    const { cookie } = await signIn();
    const json = { Cookie: cookie, 'Content-Type': 'application/json' };
    expect((await post('/api/token/expire', '{}', { Cookie: cookie, 'Content-Type': 'text/plain' })).status).toBe(415);
    expect((await post('/api/token/expire', '{}', { Cookie: cookie })).status).toBe(415);
    expect((await post('/api/token/expire', '{}', { ...json, Origin: 'http://evil.example' })).status).toBe(403);
    expect((await post('/api/token/expire', '{}', { 'Content-Type': 'application/json' })).status).toBe(401);
    for (const body of ['', 'nope', '[]', '{"on":"yes"}', '{"on":1}', 'null', JSON.stringify({ on: true, pad: 'x'.repeat(2000) })]) {
      expect((await post('/api/vendor/outage', body, json)).status, body.slice(0, 20)).toBe(400);
    }
    expect(calls).toEqual([]);
    const on = await post('/api/vendor/outage', '{"on":true}', { ...json, Origin: ORIGIN });
    expect(await on.json()).toMatchObject({ outage: true, stats: { groups: 1 } });
    expect(calls).toEqual(['outage:true']);
  });

  it("learns each customer's token from the BFF's successful answers only", async () => {
    const { app, ledger, signIn } = setUp();
    const { cookie } = await signIn('initech');
    const token = await app.request('/embed/token', { method: 'POST', headers: { Cookie: cookie } });
    const { token: issued } = (await token.json()) as { token: string };
    expect(ledger.latest('initech')).toBe(issued);
    await app.request('/embed/token/rotate', { method: 'POST', headers: { Cookie: cookie } });
    expect(ledger.latest('initech')).toBe(issued);
    await app.request('/embed/token', { method: 'POST' });
    expect(ledger.latest('acme')).toBeUndefined();
  });
});
