/**
 * examples/express and examples/fastify at https://app.test and examples/nextjs at
 * https://app.example.test, installed from the packed tarballs, behind the run's nginx
 * terminating TLS, their vendor (the emulator CLI) at https://vendor.test: each signs a customer
 * in with a `Secure` session cookie, shows its dashboard, rotates the token inside the running
 * dashboard when the vendor refuses it (no blank frame), and after sign-out stops at one 401.
 * The BFF code in them is the README's, unchanged (examples.test.ts checks).
 */
import type { Browser, Page, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually, watchDashboardFrame } from '../e2e/chromium-harness.js';
import { chromium, collectPageErrors } from '../packaging/browser.js';
import type { ServerProcess } from '../packaging/consumer.js';
import { EXAMPLE_USERS, startExample, type ExampleName } from '../packaging/example-apps.js';
import { HOSTS, launchTopologyChromium, publicOrigin, startVendor, type HostName } from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Each example, the host it is served at, and its own sign-out route. */
const EXAMPLES: ReadonlyArray<[ExampleName, HostName, string]> = [
  ['express', HOSTS.app, '/logout'],
  ['fastify', HOSTS.app, '/logout'],
  ['nextjs', HOSTS.next, '/api/logout'],
];

describe.skipIf(!chromium.available || !topology.available)('the examples behind nginx with TLS at public names', () => {
  // A vendor of each test's own: the examples share customers, and a test leaves its token dead.
  let vendor: ServerProcess | undefined;
  let browser: Browser;

  beforeAll(async () => {
    browser = await launchTopologyChromium(chromium.path, topology);
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** The vendor refuses `token` from now on (the emulator's admin route). */
  const expireAtVendor = async (token: string) => {
    const res = await fetch(`${vendor!.url}/__emulator/expire`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
    expect(res.status).toBe(200);
  };

  it.each(EXAMPLES)('%s at https://%s: Secure cookie, dashboard, rotation in place, sign-out with one 401', async (name, host, logout) => {
    const base = publicOrigin(host);
    vendor = await startVendor(consumerDir, topology, [publicOrigin(HOSTS.app), publicOrigin(HOSTS.next)]);
    const example = await startExample(consumerDir, name, {
      upstreamUrl: vendor!.url,
      port: topology.upstreams[host],
      env: { DASHBOARD_SRC_TEMPLATE: `${publicOrigin(HOSTS.vendor)}/iframe/{dashboard}` },
    });
    const context = await browser.newContext();
    try {
      const page: Page = await context.newPage();
      const errors = collectPageErrors(page);
      const tokenRequests: Request[] = [];
      page.on('request', (request) => {
        if (new URL(request.url()).pathname.startsWith('/embed/token')) tokenRequests.push(request);
      });
      await page.goto(`${base}/login`);
      await page.fill('input[name=email]', EXAMPLE_USERS[0].email);
      await page.fill('input[name=password]', EXAMPLE_USERS[0].password);
      await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button')]);
      const [cookie] = (await context.cookies(base)).filter((c) => c.name === 'session');
      expect(cookie, 'the session cookie').toMatchObject({ secure: true, httpOnly: true });

      await page.waitForSelector('embedded-dashboard[state="ready"]', { timeout: 30_000, state: 'attached' });
      const frame = page.frames().find((f) => f.url().startsWith(`${publicOrigin(HOSTS.vendor)}/iframe/`));
      expect(frame, 'the dashboard frame at https://vendor.test').toBeDefined();
      await eventually('the dashboard to show data', () => frame!.evaluate(() => document.body.dataset.state === 'ready'));
      expect(await frame!.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');

      const tokenOf = async (request: Request) => ((await (await request.response())!.json()) as { token: string }).token;
      const first = await tokenOf(tokenRequests[0]!);
      const watch = await watchDashboardFrame(frame!);
      await expireAtVendor(first);
      await eventually('a rotation answered', async () => tokenRequests.length >= 2 && (await tokenRequests[1]!.response())?.status() === 200, 15_000);
      await eventually('the dashboard on the new token', () => frame!.evaluate(() => Number(document.body.dataset.tokenGeneration) === 2 && document.body.dataset.state === 'ready'), 15_000);
      expect((await watch.report()).blank).toBe(0);
      expect(frame!.isDetached()).toBe(false);

      // Sign out (the app's own route clears the cookie), then the vendor refuses the token in use.
      await page.evaluate((path) => fetch(path, { method: 'POST', redirect: 'manual' }), logout);
      expect((await context.cookies(base)).some((c) => c.name === 'session' && c.value !== '')).toBe(false);
      const afterSignOut = tokenRequests.length;
      await expireAtVendor(await tokenOf(tokenRequests.at(-1)!));
      await eventually('the unauthenticated state', async () => (await page.locator('embedded-dashboard').getAttribute('state')) === 'unauthenticated', 15_000);
      await sleep(3_000);
      expect(await Promise.all(tokenRequests.slice(afterSignOut).map(async (r) => (await r.response())?.status()))).toEqual([401]);
      // The element's own 401 report is the only console line allowed.
      expect(errors.filter((e) => !/401/.test(e))).toEqual([]);
    } finally {
      await context.close();
      await example.server.stop();
      await vendor.stop();
    }
  });
});
