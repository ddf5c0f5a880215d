/**
 * The demo as it would be deployed: its host app at https://app.test and the vendor (the
 * emulator) at https://vendor.test, both behind the run's nginx terminating TLS, in Chromium
 * resolving those names by its own rules and trusting the run's CA. First load with a `Secure`
 * session cookie, rotation inside the running dashboard with both frame protocols (no blank
 * frame), a vendor outage ridden out, and sign-out (401, no retry loop).
 */
import type { Browser, BrowserContext, Frame } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import type { RunningDemo } from '../../demo/server/start-demo.js';
import { chromium } from '../packaging/browser.js';
import { sampleHost, type HostSample } from '../e2e/harness.js';
import {
  eventually,
  latestToken,
  openApp,
  startTestDemo,
  tokenStatuses,
  waitForGeneration,
  waitForReady,
  watchDashboardFrame,
  type AppTab,
} from '../e2e/chromium-harness.js';
import { HOSTS, httpsThroughProxy, launchTopologyChromium, publicOrigin } from './topology.js';

const topology = inject('topology');
const NOTICE_EXPIRY_MS = 15_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const expireWithButton = async (tab: AppTab) => {
  const answer = tab.page.waitForResponse((response) => response.url().endsWith('/api/token/expire'));
  await tab.page.getByTestId('expire-token').click();
  expect(await (await answer).json()).toEqual({ outcome: 'expired' });
};

describe.skipIf(!chromium.available || !topology.available)('the demo behind nginx with TLS at https://app.test, its vendor at https://vendor.test', () => {
  let demo: RunningDemo;
  let browser: Browser;
  let context: BrowserContext | undefined;

  beforeAll(async () => {
    demo = await startTestDemo({
      port: topology.upstreams[HOSTS.app],
      emulatorPort: topology.upstreams[HOSTS.vendor],
      publicUrl: publicOrigin(HOSTS.app),
      vendorPublicUrl: publicOrigin(HOSTS.vendor),
    });
    browser = await launchTopologyChromium(chromium.path, topology);
  });
  afterEach(async () => {
    await context?.close();
    context = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  const open = async (customer: string) => {
    context = await browser.newContext();
    return openApp(context, demo, customer);
  };

  it('first load at the public names, with a Secure, HttpOnly session cookie; rotation by message with no blank frame', async () => {
    expect(demo.url).toBe('https://app.test');
    const acme = await open('acme');
    await waitForReady(acme);
    expect(new URL(acme.frame().url()).origin).toBe('https://vendor.test');
    const [cookie] = (await context!.cookies('https://app.test')).filter((c) => c.name === 'northwind_session');
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax' });

    const oldToken = await latestToken(acme);
    const watch = await watchDashboardFrame(acme.frame());
    await expireWithButton(acme);
    await waitForGeneration(acme, 2, NOTICE_EXPIRY_MS);
    const report = await watch.report();
    expect(report.states).toContain('expired');
    expect(report.frames).toBeGreaterThan(10);
    expect(report.blank).toBe(0);
    expect(acme.frameNavigations).toHaveLength(1);
    expect(await latestToken(acme)).not.toBe(oldToken);
    // Every token request went through the proxy as a same-origin request and was served.
    expect(await tokenStatuses(acme)).toEqual([200, 200]);
  });

  it('protocol="explo": the rotation swaps in a frame on the new token, one visible frame on every animation frame', async () => {
    const acme = await open('acme');
    await acme.page.waitForURL(/\/app/);
    await acme.page.goto(`${demo.url}/app?protocol=explo`);
    await eventually('the element to be ready', async () => (await acme.state()) === 'ready');
    const frames = () => acme.page.frames().filter((f: Frame) => f.url().includes('/iframe/'));
    const tokenOf = (frame: Frame) => new URL(frame.url()).pathname.split('/')[3];
    const [old] = frames();
    expect(new URL(old!.url()).origin).toBe('https://vendor.test');
    await eventually('data in the frame', () => old!.evaluate(() => document.body.dataset.state === 'ready'));
    await sampleHost(acme.page);
    await expireWithButton(acme);
    const fresh = await eventually('a frame on a new token', () => frames().find((f) => tokenOf(f) !== tokenOf(old!)), NOTICE_EXPIRY_MS);
    await eventually('the old frame to be dropped', () => frames().length === 1 && frames()[0] === fresh);
    await eventually('the element to be ready again', async () => (await acme.state()) === 'ready');
    const samples = (await acme.page.evaluate(() => window.__hostSamples ?? [])) as HostSample[];
    expect(samples.length).toBeGreaterThan(10);
    expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
  });

  it('rides out a vendor outage and recovers by itself', async () => {
    const acme = await open('globex');
    await waitForReady(acme);
    await acme.page.getByTestId('toggle-outage').click();
    await eventually('the outage', async () => (await acme.page.getByTestId('toggle-outage').getAttribute('aria-pressed')) === 'true');
    await expireWithButton(acme);
    await eventually('a retryable error', async () => (await acme.events('dashboard-error')).some((e) => e.detail.retryable === true), NOTICE_EXPIRY_MS);
    expect(await acme.state()).toBe('refreshing');
    await acme.page.getByTestId('toggle-outage').click();
    await waitForGeneration(acme, 2, 70_000);
    expect(acme.frameNavigations).toHaveLength(1);
  }, 120_000);

  it('signs out: the next token request is 401 and the element stops there, without retrying', async () => {
    const acme = await open('initech');
    await waitForReady(acme);
    const token = await latestToken(acme);
    const elsewhere = await context!.newPage();
    await elsewhere.goto(`${demo.url}/logout`);
    expect((await context!.cookies()).some((c) => c.name === 'northwind_session')).toBe(false);
    const afterSignOut = acme.tokenRequests.length;
    expect(demo.emulator.expireToken(token)).toBe(true);
    await eventually('the unauthenticated state', async () => (await acme.state()) === 'unauthenticated', NOTICE_EXPIRY_MS);
    await sleep(3_000);
    expect(await tokenStatuses(acme, afterSignOut)).toEqual([401]);
  });

  it('a client without Fetch Metadata is served only at the public origin the demo states (publicOrigin)', async () => {
    const ask = (origin: string) =>
      httpsThroughProxy(topology, HOSTS.app, '/embed/token', { method: 'POST', headers: { origin, 'content-type': 'application/json' }, body: '{}' });
    // Past the origin rule to the session check: no session here, so 401.
    expect((await ask('https://app.test')).status).toBe(401);
    const refused = await ask('https://evil.test');
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('Behind a proxy');
  });
});
