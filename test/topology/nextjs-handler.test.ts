/**
 * Issue 21's "Done when": the BFF README's Next.js route handler, in a Next.js app installed from
 * the packed tarballs (examples/nextjs, whose handler is the README's code: examples.test.ts
 * checks), served at `http://127.0.0.1:PORT` and behind nginx terminating TLS at
 * `https://app.example.test`, hands a token to a same-origin browser request and still refuses a
 * cross-site one (403). On main before the origin rule, both same-origin requests were 403.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium } from '../packaging/browser.js';
import type { ServerProcess } from '../packaging/consumer.js';
import { EXAMPLE_USERS, startExample, type RunningExample } from '../packaging/example-apps.js';
import { HOSTS, launchTopologyChromium, publicOrigin, startPageServer, startVendor } from './topology.js';

const consumerDir = inject('consumerDir');
const topology = inject('topology');

/** A page of another site that tries the token route of `target` the two ways a page can. */
const CROSS_SITE_PAGE = `<!doctype html><title>another site</title><script>
window.attempt = async (target) => {
  const out = {};
  // A simple request (no preflight): it reaches the server; its answer is opaque to the page.
  await fetch(target + '/embed/token', { method: 'POST', mode: 'no-cors', credentials: 'include', body: '{}' }).catch(() => undefined);
  // A JSON request needs CORS: the browser asks first, and must be refused.
  try {
    const res = await fetch(target + '/embed/token', { method: 'POST', credentials: 'include', headers: { 'content-type': 'application/json' }, body: '{}' });
    out.json = res.status;
  } catch (error) {
    out.json = 'refused: ' + error.name;
  }
  return out;
};
</script>`;

describe.skipIf(!chromium.available || !topology.available)("the BFF README's Next.js handler in an app from the tarballs", () => {
  let vendor: ServerProcess | undefined;
  let next: RunningExample | undefined;
  let pages: Awaited<ReturnType<typeof startPageServer>> | undefined;
  let browser: Browser;
  const nextPort = topology.upstreams[HOSTS.next]!;
  const pagePort = topology.upstreams[HOSTS.app]!;

  beforeAll(async () => {
    vendor = await startVendor(consumerDir, topology, [`http://127.0.0.1:${nextPort}`, publicOrigin(HOSTS.next)]);
    next = await startExample(consumerDir, 'nextjs', { upstreamUrl: vendor.url, port: nextPort });
    pages = await startPageServer(pagePort, (req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(CROSS_SITE_PAGE));
    browser = await launchTopologyChromium(chromium.path, topology);
  });
  afterAll(async () => {
    await browser?.close();
    await pages?.close();
    await next?.server.stop();
    await vendor?.stop();
  });

  /** Signs in through the app's form at `base`, then asks the token route from the page itself. */
  async function sameOrigin(base: string): Promise<{ page: Page; status: number; body: string }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${base}/login`);
    await page.fill('input[name=email]', EXAMPLE_USERS[0].email);
    await page.fill('input[name=password]', EXAMPLE_USERS[0].password);
    await Promise.all([page.waitForURL(`${base}/dashboard`), page.click('button')]);
    const answer = await page.evaluate(async () => {
      const res = await fetch('/embed/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      return { status: res.status, body: await res.text() };
    });
    return { page, ...answer };
  }

  /** From a page of another site: every answer of `target`'s token route the browser saw, and what the page could read. */
  async function crossSite(pageUrl: string, target: string): Promise<{ statuses: number[]; json: unknown }> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const statuses: number[] = [];
    page.on('response', (response) => {
      if (response.url() === `${target}/embed/token` && response.request().method() === 'POST') statuses.push(response.status());
    });
    await page.goto(pageUrl);
    const { json } = await page.evaluate((t) => (window as unknown as { attempt(t: string): Promise<{ json: unknown }> }).attempt(t), target);
    await context.close();
    return { statuses, json };
  }

  it.each([
    ['at http://127.0.0.1:PORT', () => `http://127.0.0.1:${nextPort}`, () => `http://localhost:${pagePort}/`],
    ['behind nginx at https://app.example.test', () => publicOrigin(HOSTS.next), () => `${publicOrigin(HOSTS.app)}/`],
  ])('%s: a same-origin request gets its token, a cross-site one 403', async (_, base, otherSite) => {
    const { page, status, body } = await sameOrigin(base());
    expect(status, body).toBe(200);
    expect(JSON.parse(body)).toMatchObject({ token: expect.any(String), serverTime: expect.any(Number) });
    // And the element on the page got there too.
    await page.waitForSelector('embedded-dashboard[state="ready"]', { timeout: 30_000, state: 'attached' });
    await page.context().close();

    const { statuses, json } = await crossSite(otherSite(), base());
    expect(statuses).toEqual([403]);
    expect(json).toMatch(/^refused: TypeError$/);
  });
});
