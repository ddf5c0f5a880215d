/**
 * The BFF on a site of its own: the page at https://app.test, the BFF CLI (from the tarball) at
 * https://embed.test, both behind the run's nginx, in Chromium with third-party cookies blocked
 * (as Safari's WebKit ships, and Chrome with the setting on). A cookie session cannot reach that
 * BFF; the element's error says why. The path that works: a bearer session through the element's
 * `fetchToken` (an `Authorization` header, CORS without credentials), rotation included. And the
 * CLI behind the proxy for a client without Fetch Metadata: 403 pointing to the README unless
 * `EMBED_TRUST_PROXY=true`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../e2e/chromium-harness.js';
import { chromium } from '../packaging/browser.js';
import { REPOSITORY_ROOT, startServer, type ServerProcess } from '../packaging/consumer.js';
import { HOSTS, httpsThroughProxy, launchTopologyChromium, publicOrigin, startPageServer, startVendor } from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');
const SECRET = 'cross-site-test-session-secret-0123456789abcdef';
const BFF = publicOrigin(HOSTS.embed);

const session = () =>
  new SignJWT({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EMEA' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('wile@acme.example')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));

const element = (attributes: string) =>
  `<embedded-dashboard dashboard="sales-overview" src-template="${publicOrigin(HOSTS.vendor)}/iframe/{dashboard}" token-url="${BFF}/embed/token" ${attributes}></embedded-dashboard>`;

/** The BFF README's `fetchToken` for a cross-site BFF, word for word but for the BFF's name. */
const readmeFetchToken = (): string => {
  const readme = readFileSync(join(REPOSITORY_ROOT, 'packages/bff/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Cross-site BFF'), readme.indexOf('## How it behaves'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('packages/bff/README.md "Cross-site BFF" has no js block');
  return code.replaceAll('https://embed.example.net', BFF);
};

/** The path that works: the page's own code sends the session as a bearer token, without cookies. */
const bearerPage = (jwt: string) => `<!doctype html><title>bearer</title>
${element('')}
<script type="module">
  import { TokenRequestError } from '/element.js';
  const el = document.querySelector('embedded-dashboard');
  const sessionJwt = ${JSON.stringify(jwt)};
${readmeFetchToken()}
</script>`;

describe.skipIf(!chromium.available || !topology.available)('a cross-site BFF at https://embed.test for a page at https://app.test', () => {
  let vendor: ServerProcess | undefined;
  let bff: ServerProcess | undefined;
  let pages: Awaited<ReturnType<typeof startPageServer>> | undefined;
  let browser: Browser;
  let jwt: string;

  const startBff = async (env: Record<string, string>) => {
    bff = await startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-bff'), [], {
      cwd: consumerDir,
      env: {
        EMBED_UPSTREAM_URL: vendor!.url,
        EMBED_API_TOKEN: 'dev-customer-key',
        EMBED_SESSION_SECRET: SECRET,
        EMBED_PORT: String(topology.upstreams[HOSTS.embed]),
        EMBED_ALLOWED_ORIGINS: publicOrigin(HOSTS.app),
        EMBED_LOG_LEVEL: 'silent',
        ...env,
      },
      readyText: 'bff listening on ',
    });
  };

  beforeAll(async () => {
    jwt = await session();
    vendor = await startVendor(consumerDir, topology, [publicOrigin(HOSTS.app)]);
    const standalone = readFileSync(createRequire(join(consumerDir, 'package.json')).resolve('@embedded-dashboard/element/standalone'));
    pages = await startPageServer(topology.upstreams[HOSTS.app]!, (req, res) => {
      if (req.url === '/element.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(standalone);
      const html = req.url === '/cookie' ? `<!doctype html><title>cookie</title><script type="module" src="/element.js"></script>${element('with-credentials')}` : bearerPage(jwt);
      res.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    browser = await launchTopologyChromium(chromium.path, topology, { thirdPartyCookies: 'block' });
  });
  afterEach(async () => {
    await bff?.stop();
    bff = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await vendor?.stop();
  });

  /** Records the element's `dashboard-error` events from the page's start. */
  const recordErrors = (page: Page) =>
    page.addInitScript(() => {
      const errors: unknown[] = ((window as unknown as { __errors: unknown[] }).__errors = []);
      document.addEventListener('dashboard-error', (event) => errors.push((event as CustomEvent).detail));
    });

  it("a cookie session: blocked as a third-party cookie, and the element's error says so and what works instead", async () => {
    await startBff({ EMBED_SESSION_COOKIE: 'session' });
    const cookie = { name: 'session', value: jwt, domain: HOSTS.embed, path: '/', secure: true, httpOnly: true, sameSite: 'None' as const };

    const blocked = await browser.newContext();
    await blocked.addCookies([cookie]);
    const page = await blocked.newPage();
    await recordErrors(page);
    await page.goto(`${publicOrigin(HOSTS.app)}/cookie`);
    await eventually('the unauthenticated state', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'unauthenticated');
    const [error] = (await page.evaluate(() => (window as unknown as { __errors: unknown[] }).__errors)) as Array<{ code: string; message: string }>;
    expect(error!.code).toBe('unauthenticated');
    expect(error!.message).toBe(
      'no session cookie "session" from another origin (third-party cookies blocked, or no with-credentials): use a bearer session, see "Cross-site BFF" in the @embedded-dashboard/bff README',
    );
    await blocked.close();
  });

  it('a bearer session through fetchToken (no cookies): ready, and rotated when the vendor refuses the token', async () => {
    await startBff({});
    const context = await browser.newContext();
    const page = await context.newPage();
    await recordErrors(page);
    const answers: Array<{ url: string; status: number; cors: string | undefined }> = [];
    const tokens: string[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(`${BFF}/embed/token`) && response.request().method() === 'POST') {
        answers.push({ url: response.url(), status: response.status(), cors: response.headers()['access-control-allow-origin'] });
        void response.json().then((body: { token?: string }) => body.token && tokens.push(body.token), () => undefined);
      }
    });
    await page.goto(`${publicOrigin(HOSTS.app)}/bearer`);
    await page.waitForSelector('embedded-dashboard[state="ready"]', { timeout: 30_000, state: 'attached' });
    expect(answers[0]).toEqual({ url: `${BFF}/embed/token`, status: 200, cors: 'https://app.test' });

    const frame = page.frames().find((f) => f.url().startsWith(`${publicOrigin(HOSTS.vendor)}/iframe/`))!;
    await eventually('the dashboard to show data', () => frame.evaluate(() => document.body.dataset.state === 'ready'));
    const held = await eventually('the first token', () => tokens[0]);
    const expired = await fetch(`${vendor!.url}/__emulator/expire`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: held }) });
    expect(expired.status).toBe(200);
    // The dashboard notices, the element rotates through fetchToken (/rotate with the held token), in the same frame.
    await eventually('the dashboard on the new token', () => frame.evaluate(() => document.body.dataset.tokenGeneration === '2' && document.body.dataset.state === 'ready'), 15_000);
    expect(answers.at(-1)).toEqual({ url: `${BFF}/embed/token/rotate`, status: 200, cors: 'https://app.test' });
    expect(await page.evaluate(() => (window as unknown as { __errors: unknown[] }).__errors)).toEqual([]);
    await context.close();
  });

  it('the CLI behind the proxy, to a client without Fetch Metadata: 403 with the README pointer, served with EMBED_TRUST_PROXY=true', async () => {
    const ask = () =>
      httpsThroughProxy(topology, HOSTS.embed, '/embed/token', { method: 'POST', headers: { origin: BFF, 'content-type': 'application/json' }, body: '{}' });
    await startBff({});
    const refused = await ask();
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.message).toContain('see "Behind a proxy" in the @embedded-dashboard/bff README');
    await bff!.stop();
    await startBff({ EMBED_TRUST_PROXY: 'true' });
    // Past the origin rule to the session check (no session sent): 401, not 403.
    expect((await ask()).status).toBe(401);
  });
});
