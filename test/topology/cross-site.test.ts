/**
 * The BFF on a site of its own: the page at https://app.test, the BFF CLI (from the tarball) at
 * https://embed.test, both behind the run's nginx, with third-party cookies kept from the BFF as
 * each engine does it: Chromium blocking them (as Chrome does with the setting on, and in
 * incognito), Firefox ESR as it ships (Total Cookie Protection: the BFF's own cookies are not sent
 * from another site's page), WebKitGTK with Intelligent Tracking Prevention on (as Safari ships).
 * A cookie session cannot reach that BFF; the element's error says why. The path that works: a
 * bearer session through the element's `fetchToken` (an `Authorization` header, CORS without
 * credentials), rotation included, and `Retry-After` readable across origins. And the CLI behind
 * the proxy for a client without Fetch Metadata: 403 pointing to the README unless
 * `EMBED_TRUST_PROXY=true`.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { afterAll, afterEach, beforeAll, expect, inject, it } from 'vitest';
import type { EngineName } from '../support/browsers/index.js';
import { eventually, useDemo } from '../e2e/harness.js';
import { REPOSITORY_ROOT, startServer, type ServerProcess } from '../packaging/consumer.js';
import {
  describeTopology,
  expireAtVendor,
  HOSTS,
  httpsThroughProxy,
  installTokenRecorder,
  publicOrigin,
  recordedTokenRequests,
  startPageServer,
  startVendor,
  topologyLaunch,
  useSharedContext,
} from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');
const SECRET = 'cross-site-test-session-secret-0123456789abcdef';
const APP = publicOrigin(HOSTS.app);
const BFF = publicOrigin(HOSTS.embed);

/** How each engine keeps third-party cookies from the BFF (see the file comment). */
const THIRD_PARTY_COOKIES: Record<EngineName, 'block' | undefined> = { chromium: 'block', firefox: undefined, webkit: 'block' };

const session = () =>
  new SignJWT({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: { region: 'EMEA' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('wile@acme.example')
    .setExpirationTime('10m')
    .sign(new TextEncoder().encode(SECRET));

const element = (attributes: string) =>
  `<embedded-dashboard dashboard="sales-overview" src-template="${publicOrigin(HOSTS.vendor)}/iframe/{dashboard}" token-url="${BFF}/embed/token" ${attributes}></embedded-dashboard>`;

/** Inline, before the page's own scripts: the element's `dashboard-error`s, and the token requests (topology.ts). */
const RECORDERS = `<script>
  window.__errors = [];
  document.addEventListener('dashboard-error', (event) => window.__errors.push(event.detail));
  (${installTokenRecorder.toString()})();
</script>`;

/** The BFF README's `fetchToken` for a cross-site BFF, word for word but for the BFF's name. */
const readmeFetchToken = (): string => {
  const readme = readFileSync(join(REPOSITORY_ROOT, 'packages/bff/README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Cross-site BFF'), readme.indexOf('## How it behaves'));
  const code = /```js\n([\s\S]*?)```/.exec(section)?.[1];
  if (!code) throw new Error('packages/bff/README.md "Cross-site BFF" has no js block');
  return code.replaceAll('https://embed.example.net', BFF);
};

/** The path that works: the page's own code sends the session as a bearer token, without cookies. */
const bearerPage = (jwt: string) => `<!doctype html><title>bearer</title>${RECORDERS}
${element('')}
<script type="module">
  import { TokenRequestError } from '/element.js';
  const el = document.querySelector('embedded-dashboard');
  const sessionJwt = ${JSON.stringify(jwt)};
${readmeFetchToken()}
</script>`;

const cookiePage = `<!doctype html><title>cookie</title>${RECORDERS}<script type="module" src="/element.js"></script>${element('with-credentials')}`;

describeTopology(topology, 'a cross-site BFF at https://embed.test for a page at https://app.test, in $name', (engine) => {
  const run = useDemo(engine, { launch: topologyLaunch(engine.name, topology, { thirdPartyCookies: THIRD_PARTY_COOKIES[engine.name] }) });
  const sharedContext = useSharedContext(run, engine);
  let vendor: ServerProcess | undefined;
  let bff: ServerProcess | undefined;
  let pages: Awaited<ReturnType<typeof startPageServer>> | undefined;
  let jwt: string;

  const startBff = async (env: Record<string, string>) => {
    bff = await startServer(join(consumerDir, 'node_modules/.bin/embedded-dashboard-bff'), [], {
      cwd: consumerDir,
      env: {
        EMBED_UPSTREAM_URL: vendor!.url,
        EMBED_API_TOKEN: 'dev-customer-key',
        EMBED_SESSION_SECRET: SECRET,
        EMBED_PORT: String(engine.lane.upstreams[HOSTS.embed]),
        EMBED_ALLOWED_ORIGINS: APP,
        EMBED_LOG_LEVEL: 'silent',
        ...env,
      },
      readyText: 'bff listening on ',
    });
  };

  beforeAll(async () => {
    if (!engine.available) return;
    jwt = await session();
    vendor = await startVendor(consumerDir, engine.lane, [APP]);
    const standalone = readFileSync(createRequire(join(consumerDir, 'package.json')).resolve('@embedded-dashboard/element/standalone'));
    pages = await startPageServer(engine.lane.upstreams[HOSTS.app], (req, res) => {
      if (req.url === '/element.js') return res.writeHead(200, { 'content-type': 'text/javascript' }).end(standalone);
      res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/cookie' ? cookiePage : bearerPage(jwt));
    });
  });
  afterEach(async () => {
    await bff?.stop();
    bff = undefined;
  });
  afterAll(async () => {
    await pages?.close();
    await vendor?.stop();
  });

  const errors = (tab: { evaluate<R>(fn: () => R): Promise<Awaited<R>> }) =>
    tab.evaluate(() => (window as unknown as { __errors: Array<{ code: string; message: string }> }).__errors);

  it.skipIf(!engine.available)(
    "a cookie session: kept from the BFF as a third-party cookie, and the element's error says so and what works instead",
    async () => {
      await startBff({ EMBED_SESSION_COOKIE: 'session' });
      const context = sharedContext();
      // The BFF's site's own session cookie, as its login would set it: sent to it from any site, were third-party cookies let through.
      await context.setCookie(BFF, 'session', jwt, { secure: true, httpOnly: true, sameSite: 'None' });
      expect((await context.cookies(BFF)).find((c) => c.name === 'session')).toMatchObject({ secure: true, httpOnly: true, sameSite: 'None' });
      const tab = await context.newTab();
      await tab.goto(`${APP}/cookie`);
      await eventually('the unauthenticated state', () =>
        tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') === 'unauthenticated'),
      );
      const [error] = await errors(tab);
      expect(error!.code).toBe('unauthenticated');
      expect(error!.message).toBe(
        'no session cookie "session" from another origin (third-party cookies blocked, or no with-credentials): use a bearer session, see "Cross-site BFF" in the @embedded-dashboard/bff README',
      );
    },
  );

  it.skipIf(!engine.available)(
    'a bearer session through fetchToken (no cookies): ready, rotated when the vendor refuses the token, Retry-After readable',
    async () => {
      await startBff({});
      const tab = await sharedContext().newTab();
      await tab.goto(`${APP}/bearer`);
      await eventually(
        'the element to be ready',
        () => tab.evaluate(() => document.querySelector('embedded-dashboard')?.getAttribute('state') === 'ready'),
        30_000,
      );
      // The page read the answers' bodies: CORS let it (a refused CORS answer is a network error to the page).
      const [first] = await recordedTokenRequests(tab);
      expect(first).toMatchObject({ url: `${BFF}/embed/token`, status: 200, token: expect.any(String) });

      const frame = await tab.frame((url) => url.startsWith(`${publicOrigin(HOSTS.vendor)}/iframe/`));
      await eventually('the dashboard to show data', () => frame.evaluate(() => document.body.dataset.state === 'ready'));
      await expireAtVendor(vendor!, first!.token!);
      // The dashboard notices, the element rotates through fetchToken (/rotate with the held token), in the same frame.
      await eventually(
        'the dashboard on the new token',
        () => frame.evaluate(() => document.body.dataset.tokenGeneration === '2' && document.body.dataset.state === 'ready'),
        15_000,
      );
      const rotated = (await recordedTokenRequests(tab)).at(-1)!;
      expect(rotated).toMatchObject({ url: `${BFF}/embed/token/rotate`, status: 200, token: expect.any(String) });
      expect(await errors(tab)).toEqual([]);

      // Presenting the new token again inside the minimum rotation interval: 429, and the page can read how long to wait.
      const again = await tab.evaluate(
        async ([url, bearer, token]) => {
          const res = await fetch(url, {
            method: 'POST',
            credentials: 'omit',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
            body: JSON.stringify({ token }),
          });
          return { status: res.status, retryAfter: res.headers.get('retry-after'), requestId: res.headers.get('x-request-id') };
        },
        [`${BFF}/embed/token/rotate`, jwt, rotated.token!] as const,
      );
      expect(again).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/), requestId: expect.any(String) });
    },
  );

  it.skipIf(!engine.available)(
    'the CLI behind the proxy, to a client without Fetch Metadata: 403 with the README pointer, served with EMBED_TRUST_PROXY=true',
    async () => {
      const ask = () =>
        httpsThroughProxy(topology, engine.lane, HOSTS.embed, '/embed/token', {
          method: 'POST',
          headers: { origin: BFF, 'content-type': 'application/json' },
          body: '{}',
        });
      await startBff({});
      const refused = await ask();
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).error.message).toContain('see "Behind a proxy" in the @embedded-dashboard/bff README');
      await bff!.stop();
      await startBff({ EMBED_TRUST_PROXY: 'true' });
      // Past the origin rule to the session check (no session sent): 401, not 403.
      expect((await ask()).status).toBe(401);
    },
  );
});
