import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { Hono } from 'hono';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createBffApp } from '../app.js';
import { createBffNodeListener } from '../http/node-listener.js';
import type { BffAppOptions } from '../options.js';
import { API_TOKEN, call, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { socketBffs } from '../../test/support/socket-bffs.js';
import { createEmbedRoutes } from './embed-routes.js';

/**
 * The origin rule (ARCHITECTURE §4, "Origin"): the browser's own Fetch Metadata first, then the
 * operator's public origin or a trusted proxy's headers, then the request URL; allowedOrigins
 * for everyone else. Every case states who would send such a request.
 */

/** What the server hands the BFF when it listens on 127.0.0.1:8787 behind a TLS proxy, or Next.js at 127.0.0.1. */
const INTERNAL = 'http://127.0.0.1:8787';
const PUBLIC = 'https://app.example.test';

function setup(overrides: Partial<BffAppOptions> = {}) {
  const upstream = new FakeUpstream();
  const app = createBffApp({
    upstream,
    session: { secret: SESSION_SECRET },
    logger: captureLogs().logger,
    secrets: [API_TOKEN],
    rateLimit: false,
    ...overrides,
  });
  return { app, upstream };
}

/** A token request to `url` with these headers, as `app.request` takes it. */
const ask = async (app: Hono, headers: Record<string, string>, url = `${INTERNAL}/embed/token`) => call(app, url, tokenRequest(await session(), {}, headers));

const messageOf = (body: unknown) => (body as { error: { message: string } }).error.message;

afterAll(() => expect(findLeaks()).toEqual([]));

describe('Sec-Fetch-Site: same-origin, the browser vouching for the request', () => {
  it.each([
    ['a TLS-terminating proxy in front (the URL says http)', PUBLIC],
    ['Next.js at 127.0.0.1 (it builds the URL with localhost)', 'http://127.0.0.1:3000'],
    ['an IPv6 page', 'http://[::1]:3000'],
    ['a non-default port', 'https://app.example.test:8443'],
  ])('is served whatever the request URL says: %s', async (_, origin) => {
    const { app } = setup();
    const res = await ask(app, { origin, 'sec-fetch-site': 'same-origin' }, 'http://localhost:3000/embed/token');
    expect(res.status).toBe(200);
    // Same-origin needs no CORS answer.
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('is refused when the operator stated another public origin (publicOrigin)', async () => {
    const { app, upstream } = setup({ publicOrigin: PUBLIC });
    expect((await ask(app, { origin: PUBLIC, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    const res = await ask(app, { origin: 'https://elsewhere.example', 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(403);
    expect(messageOf(res.body)).toContain(`public origin is "${PUBLIC}"`);
    expect(messageOf(res.body)).toContain('see "Behind a proxy" in the @embedded-dashboard/bff README');
    expect(upstream.calls.getOrCreate).toBe(1);
  });

  it('is refused when a trusted proxy states another public origin', async () => {
    const { app } = setup({ trustProxy: true });
    const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test' };
    expect((await ask(app, { ...proxied, origin: PUBLIC, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
    expect((await ask(app, { ...proxied, origin: 'http://app.example.test', 'sec-fetch-site': 'same-origin' })).status).toBe(403);
  });

  it('an origin in allowedOrigins stays allowed though it is not the stated one', async () => {
    const { app } = setup({ publicOrigin: PUBLIC, allowedOrigins: ['https://www.example.test'] });
    const res = await ask(app, { origin: 'https://www.example.test', 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(200);
  });

  it.each([
    ['Origin: null (a sandboxed or opaque page)', 'null'],
    ['upper case', 'HTTPS://APP.EXAMPLE.TEST'],
    ['a mixed-case host', 'https://App.Example.Test'],
    ['the default port spelled out (https)', 'https://app.example.test:443'],
    ['the default port spelled out (http)', 'http://app.example.test:80'],
    ['a path', 'https://app.example.test/'],
    ['user info', 'https://user@app.example.test'],
    ['two origins', `${PUBLIC}, https://evil.example`],
    ['another scheme', 'chrome-extension://abcdefghijklmnop'],
    ['a file page', 'file://'],
    ['a unicode host (browsers send punycode)', 'https://bücher.example'],
    ['a port of zero', 'https://app.example.test:0'],
    ['an oversized value', `https://${'a'.repeat(10_000)}.example`],
  ])('an Origin no browser sends is refused even so: %s', async (_, origin) => {
    const { app, upstream } = setup();
    const res = await ask(app, { origin, 'sec-fetch-site': 'same-origin' });
    expect(res.status).toBe(403);
    expect(res.text.length).toBeLessThan(600);
    expect(upstream.calls.getOrCreate).toBe(0);
  });
});

describe('Sec-Fetch-Site: same-site and cross-site, the browser saying the page is elsewhere', () => {
  it.each(['same-site', 'cross-site'])('%s: refused unless in allowedOrigins, whatever else matches', async (site) => {
    const { app, upstream } = setup({ publicOrigin: PUBLIC, trustProxy: true });
    // The page's origin looks like the BFF's own, but the browser says it is not: only a forged request says both.
    for (const origin of [PUBLIC, 'https://evil.example', INTERNAL]) {
      const res = await ask(app, { origin, 'sec-fetch-site': site, 'x-forwarded-host': 'app.example.test', 'x-forwarded-proto': 'https' });
      expect(res.status, origin).toBe(403);
      expect(messageOf(res.body)).toContain(`the browser says the request is ${site}`);
    }
    expect(upstream.calls.getOrCreate).toBe(0);
  });

  it('an allowed cross-site page gets CORS with credentials, and its preflight', async () => {
    const { app } = setup({ allowedOrigins: ['https://shop.example'] });
    const res = await ask(app, { origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    const preflight = await call(app, `${INTERNAL}/embed/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example', 'sec-fetch-site': 'cross-site', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
  });

  it("lets an allowed page of another origin read an error's Retry-After and request id (the element's backoff honours Retry-After)", async () => {
    const { app } = setup({ allowedOrigins: ['https://shop.example'], rateLimit: { token: { limit: 1, windowSeconds: 60 } } });
    const jwt = await session();
    const headers = { origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' };
    const ok = await call(app, `${INTERNAL}/embed/token`, tokenRequest(jwt, {}, headers));
    expect(ok.status).toBe(200);
    // Nothing to expose on a token answer: its body is all the page reads.
    expect(ok.headers.get('access-control-expose-headers')).toBeNull();
    const limited = await call(app, `${INTERNAL}/embed/token`, tokenRequest(jwt, {}, headers));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(limited.headers.get('access-control-expose-headers')).toBe('retry-after, x-request-id');
    // A same-origin page reads every header anyway: no CORS headers at all.
    const own = await ask(app, { origin: PUBLIC, 'sec-fetch-site': 'same-origin' });
    expect(own.headers.get('access-control-expose-headers')).toBeNull();
  });
});

describe('no Fetch Metadata (plain HTTP at a host other than localhost, older browsers, Sec-Fetch-Site: none)', () => {
  const proxied = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test' };

  it.each([undefined, 'none', 'Same-Origin', 'same-origin, same-origin', 'same-origin;x', 'unknown-value'])(
    'Sec-Fetch-Site %j proves nothing: the origin must be the one the request reached',
    async (site) => {
      const { app } = setup();
      const headers = (origin: string): Record<string, string> => ({ origin, ...(site === undefined ? {} : { 'sec-fetch-site': site }) });
      expect((await ask(app, headers(INTERNAL))).status).toBe(200);
      const refused = await ask(app, headers(PUBLIC));
      expect(refused.status).toBe(403);
      // Behind a proxy this is the refusal an operator meets first: it says where to read.
      expect(messageOf(refused.body)).toContain('see "Behind a proxy" in the @embedded-dashboard/bff README');
    },
  );

  it('the BFF README\'s "Behind a proxy" quotes this refusal word for word', async () => {
    const { app } = setup();
    const refused = await ask(app, { origin: 'https://app.example.com' });
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## Behind a proxy'), readme.indexOf('## How it behaves'));
    expect(section).toContain(`\`${refused.text}\``);
  });

  it('publicOrigin: the public origin is served, the internal one no longer', async () => {
    const { app } = setup({ publicOrigin: PUBLIC });
    expect((await ask(app, { origin: PUBLIC })).status).toBe(200);
    expect((await ask(app, { origin: INTERNAL })).status).toBe(403);
  });

  it('trustProxy: the origin X-Forwarded-Proto and X-Forwarded-Host state is served', async () => {
    const { app } = setup({ trustProxy: true });
    expect((await ask(app, { ...proxied, origin: PUBLIC })).status).toBe(200);
    expect((await ask(app, { ...proxied, origin: 'https://evil.example' })).status).toBe(403);
    // Without the headers the request URL is the origin again.
    expect((await ask(app, { origin: INTERNAL })).status).toBe(200);
    expect((await ask(app, { origin: PUBLIC })).status).toBe(403);
  });

  it("the proxy's headers count for nothing unless trustProxy is on (the default)", async () => {
    const { app } = setup();
    expect((await ask(app, { ...proxied, origin: PUBLIC })).status).toBe(403);
    expect((await ask(app, { forwarded: 'proto=https;host=app.example.test', origin: PUBLIC })).status).toBe(403);
  });

  it('publicOrigin wins over the proxy headers', async () => {
    const { app } = setup({ trustProxy: true, publicOrigin: 'https://other.example.test' });
    expect((await ask(app, { ...proxied, origin: PUBLIC })).status).toBe(403);
    expect((await ask(app, { ...proxied, origin: 'https://other.example.test' })).status).toBe(200);
  });

  it.each([
    ['Forwarded with proto and host', { forwarded: 'for=192.0.2.60;proto=https;host=app.example.test' }, PUBLIC],
    ['Forwarded, quoted values and upper-case names', { forwarded: 'For="[2001:db8::17]:4711";Proto="HTTPS";Host="App.Example.Test"' }, PUBLIC],
    ['Forwarded, the default port spelled out', { forwarded: 'proto=https;host="app.example.test:443"' }, PUBLIC],
    [
      'Forwarded, an unquoted port (common, though RFC 7239 wants it quoted)',
      { forwarded: 'proto=https;host=app.example.test:8443' },
      'https://app.example.test:8443',
    ],
    ['Forwarded, an IPv6 host', { forwarded: 'proto=https;host="[2001:db8::1]:8443"' }, 'https://[2001:db8::1]:8443'],
    [
      'Forwarded, two proxies that agree',
      { forwarded: 'for=1.1.1.1;proto=https;host=app.example.test, for=10.0.0.1;proto=https;host=app.example.test' },
      PUBLIC,
    ],
    ['Forwarded, one proxy stating proto, the other host', { forwarded: 'proto=https, for=10.0.0.1;host=app.example.test' }, PUBLIC],
    ['Forwarded proto, X-Forwarded-Host host', { forwarded: 'proto=https', 'x-forwarded-host': 'app.example.test' }, PUBLIC],
    ['X-Forwarded-*, upper case and spaces', { 'x-forwarded-proto': ' HTTPS ', 'x-forwarded-host': 'APP.example.test' }, PUBLIC],
    ['X-Forwarded-*, the same value twice', { 'x-forwarded-proto': 'https, https', 'x-forwarded-host': 'app.example.test,app.example.test' }, PUBLIC],
    ['X-Forwarded-Proto alone (the host from the request)', { 'x-forwarded-proto': 'https' }, 'https://127.0.0.1:8787'],
    ['X-Forwarded-Host alone (the scheme from the request)', { 'x-forwarded-host': 'app.example.test' }, 'http://app.example.test'],
  ])('trusted %s → %s', async (_, headers, expected) => {
    const { app } = setup({ trustProxy: true });
    expect((await ask(app, { ...headers, origin: expected })).status).toBe(200);
  });

  it.each([
    ['Forwarded, two proxies that disagree on the host', { forwarded: 'proto=https;host=app.example.test, proto=https;host=evil.example' }],
    ['Forwarded, two proxies that disagree on the scheme', { forwarded: 'proto=http;host=app.example.test, proto=https' }],
    ['Forwarded, a host twice in one element', { forwarded: 'proto=https;host=app.example.test;host=app.example.test' }],
    ['Forwarded, a path in the host', { forwarded: 'proto=https;host="app.example.test/evil"' }],
    ['Forwarded, user info in the host', { forwarded: 'proto=https;host="evil.example@app.example.test"' }],
    ['Forwarded, a quote injected', { forwarded: 'proto=https;host="app.example.test" ;proto=http"' }],
    ['Forwarded, an unterminated quote', { forwarded: 'proto=https;host="app.example.test' }],
    ['Forwarded, a space in a token', { forwarded: 'proto=https;host=app .example.test' }],
    ['Forwarded, an empty value', { forwarded: 'proto=;host=app.example.test' }],
    ['Forwarded, another scheme', { forwarded: 'proto=javascript;host=app.example.test' }],
    ['Forwarded, oversized', { forwarded: `proto=https;host=app.example.test, ${'for=1.1.1.1, '.repeat(200)}` }],
    ['X-Forwarded-Host, two proxies that disagree', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test, evil.example' }],
    ['X-Forwarded-Proto, two proxies that disagree', { 'x-forwarded-proto': 'https,http', 'x-forwarded-host': 'app.example.test' }],
    ['X-Forwarded-Host, an empty entry', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test,' }],
    ['X-Forwarded-Host, a port out of range', { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test:70000' }],
    ['X-Forwarded-Host, an IPv6 address without brackets', { 'x-forwarded-proto': 'https', 'x-forwarded-host': '2001:db8::1' }],
    ['X-Forwarded-Host, oversized', { 'x-forwarded-proto': 'https', 'x-forwarded-host': `${'a.'.repeat(600)}test` }],
  ])('trusted, but %s: no public origin is taken from it', async (_, headers) => {
    const { app } = setup({ trustProxy: true });
    const res = await ask(app, { ...headers, origin: PUBLIC });
    expect(res.status).toBe(403);
    expect(messageOf(res.body)).toContain('Behind a proxy');
    // The browser's own word still counts where the proxy's cannot be read.
    expect((await ask(app, { ...headers, origin: PUBLIC, 'sec-fetch-site': 'same-origin' })).status).toBe(200);
  });
});

describe('embedPageOrigin: the accepted page origin, for later handlers', () => {
  /** The routes inside an integrator's Hono app, with a handler after the guard that reads the variable. */
  function mounted(options: Partial<BffAppOptions> = {}) {
    const seen: Array<string | undefined> = [];
    const app = new Hono();
    app.use('/embed/*', async (c, next) => {
      await next();
      seen.push(c.get('embedPageOrigin'));
    });
    app.route('/embed', createEmbedRoutes({ upstream: new FakeUpstream(), session: { secret: SESSION_SECRET }, logger: captureLogs().logger, ...options }));
    return { app, seen };
  }

  it('is the same-origin page, the allowed cross-origin page, or undefined', async () => {
    const { app, seen } = mounted({ allowedOrigins: ['https://shop.example'] });
    await ask(app, { origin: PUBLIC, 'sec-fetch-site': 'same-origin' });
    await ask(app, { origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' });
    await ask(app, { origin: INTERNAL });
    await ask(app, {});
    const refused = await ask(app, { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
    expect(refused.status).toBe(403);
    expect(seen).toEqual([PUBLIC, 'https://shop.example', INTERNAL, undefined, undefined]);
  });
});

describe('options', () => {
  it.each([
    [{ publicOrigin: 'https://app.example.test/' }, /publicOrigin/],
    [{ publicOrigin: 'app.example.test' }, /publicOrigin/],
    [{ publicOrigin: 'ftp://app.example.test' }, /publicOrigin/],
    [{ trustProxy: 'yes' as unknown as boolean }, /trustProxy/],
    [{ allowedOrigins: 'https://a.example' as unknown as string[] }, /allowedOrigins/],
  ])('refuses %j at start', (options, message) => {
    expect(() => setup(options)).toThrow(message);
  });
});

describe('on a real socket (Node joins repeated headers)', () => {
  const bffs = socketBffs();
  afterEach(() => bffs.closeAll());

  /** A raw HTTP request with repeated header lines (node:http sends an array as several lines). */
  const raw = (url: string, headers: Record<string, string | string[]>, jwt: string) =>
    new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        `${url}/embed/token`,
        { method: 'POST', headers: { ...headers, 'content-type': 'application/json', authorization: `Bearer ${jwt}` } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode!));
        },
      );
      req.on('error', reject);
      req.end('{}');
    });

  it('two X-Forwarded-Host lines that disagree, two Sec-Fetch-Site lines, two Origin lines: never same-origin', async () => {
    const { app } = setup({ trustProxy: true });
    const url = await bffs.serveListener(createBffNodeListener(app));
    const jwt = await session();
    expect(await raw(url, { origin: PUBLIC, 'x-forwarded-proto': 'https', 'x-forwarded-host': 'app.example.test' }, jwt)).toBe(200);
    expect(await raw(url, { origin: PUBLIC, 'x-forwarded-proto': 'https', 'x-forwarded-host': ['app.example.test', 'evil.example'] }, jwt)).toBe(403);
    expect(await raw(url, { origin: PUBLIC, forwarded: ['proto=https;host=app.example.test', 'proto=https;host=evil.example'] }, jwt)).toBe(403);
    expect(await raw(url, { origin: PUBLIC, 'sec-fetch-site': ['same-origin', 'same-origin'] }, jwt)).toBe(403);
    expect(await raw(url, { origin: [PUBLIC, PUBLIC], 'sec-fetch-site': 'same-origin' }, jwt)).toBe(403);
    // The URL Node's adapter builds from the Host header: the browser's host, scheme http.
    expect(await raw(url, { origin: url }, jwt)).toBe(200);
  });
});

describe('the README and the tested proxy agree', () => {
  it('"Behind a proxy" recommends exactly the nginx lines test/topology runs', async () => {
    const { PROXY_HEADERS } = await import('../../../../test/topology/nginx.js');
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(`\`\`\`nginx\n${PROXY_HEADERS}\n\`\`\``);
  });
});

describe('a cookie session that does not arrive from a page of another origin', () => {
  it('is told why (third-party cookies, with-credentials) and what works instead; same-origin keeps the plain message', async () => {
    const { app } = setup({ session: { secret: SESSION_SECRET, cookie: 'session' }, allowedOrigins: ['https://shop.example'] });
    const post = (headers: Record<string, string>) => call(app, `${INTERNAL}/embed/token`, tokenRequest(undefined, {}, headers));
    const crossSite = await post({ origin: 'https://shop.example', 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(401);
    expect(crossSite.body).toMatchObject({ error: { code: 'unauthenticated', retryable: false } });
    // All of it within the 200 characters the element passes on.
    expect(messageOf(crossSite.body).slice(0, 200)).toBe(
      'no session cookie "session" from another origin (third-party cookies blocked, or no with-credentials): use a bearer session, see "Cross-site BFF" in the @embedded-dashboard/bff README',
    );
    expect(crossSite.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    const sameOrigin = await post({ origin: PUBLIC, 'sec-fetch-site': 'same-origin' });
    expect(messageOf(sameOrigin.body)).toBe('no session cookie "session"');
    // A cookie that arrived but does not verify is another story: the plain message.
    const forged = await post({ origin: 'https://shop.example', 'sec-fetch-site': 'cross-site', cookie: 'session=not-a-jwt' });
    expect(forged.status).toBe(401);
    expect(messageOf(forged.body)).not.toContain('Cross-site BFF');
  });
});
