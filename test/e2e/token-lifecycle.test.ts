import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemo, StartDemoOptions } from '../../demo/server/start-demo.js';
import { chromiumTool } from '../support/tools.js';
import { eventually, latestToken, openApp, openBrowser, postFromDashboard, startTestDemo, waitForReady, watchDashboardFrame } from './harness.js';

const tool = chromiumTool();
// The emulator's dashboard re-reads its data every 15 s: that is when it notices a dead token.
const NOTICE_EXPIRY_MS = 40_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!tool.available)('demo in Chromium: the token lifecycle', () => {
  let browser: Browser;
  let demo: RunningDemo | undefined;
  let context: BrowserContext | undefined;

  const setUp = async (options?: StartDemoOptions) => {
    demo = await startTestDemo(options);
    context = await browser.newContext();
    return { demo, context };
  };

  beforeAll(async () => {
    browser = await openBrowser(tool.path);
  });
  afterEach(async () => {
    await context?.close();
    await demo?.close();
    context = demo = undefined;
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('swaps an expired token inside the running dashboard: no navigation, no blank frame', async () => {
    const { demo, context } = await setUp();
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    expect((await acme.dashboard()).generation).toBe(1);
    const oldToken = await latestToken(acme);
    const watch = await watchDashboardFrame(acme.frame());

    await acme.page.getByTestId('expire-token').click();
    await eventually('the expiry to be confirmed', async () => (await acme.page.getByTestId('action-result').textContent())?.includes('refuses'));
    expect(demo.emulator.resolveToken(oldToken)).toBeUndefined();

    await eventually(
      'the dashboard to run on a new token',
      async () => {
        const dashboard = await acme.dashboard();
        return dashboard.generation === 2 && dashboard.state === 'ready';
      },
      NOTICE_EXPIRY_MS,
    );
    await waitForReady(acme);
    const report = await watch.report();
    expect(report.states).toContain('expired');
    expect(report.frames).toBeGreaterThan(10);
    expect(report.blank).toBe(0);
    expect(acme.frameNavigations).toHaveLength(1);
    expect((await acme.events('dashboard-token')).map((e) => e.detail.reason)).toEqual(['initial', 'rotate']);
    const newToken = await latestToken(acme);
    expect(newToken).not.toBe(oldToken);
    expect(demo.emulator.resolveToken(newToken)?.providedId).toBe('acme');
    await expect.poll(() => acme.page.frameLocator('embedded-dashboard iframe').getByTestId('group-name').textContent()).toBe('Acme Corp');
  });

  it('refreshes a short-lived token before it expires, without reloading the dashboard', async () => {
    const { demo, context } = await setUp({ tokenTtlSeconds: 3, refreshMarginSeconds: 1 });
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    const first = await latestToken(acme);
    const initial = (await acme.events('dashboard-token'))[0];
    expect(initial?.detail.reason).toBe('initial');
    expect(typeof initial?.detail.expiresAt).toBe('number');

    await eventually('a refresh', async () => (await acme.events('dashboard-token')).some((e) => e.detail.reason === 'refresh'), 20_000);
    await eventually('the dashboard to take the refreshed token', async () => {
      const dashboard = await acme.dashboard();
      return dashboard.generation >= 2 && dashboard.state === 'ready';
    });
    expect(await latestToken(acme)).not.toBe(first);
    expect(await acme.state()).toBe('ready');
    expect(acme.frameNavigations).toHaveLength(1);
  });

  it('rides out a vendor outage with bounded retries and recovers by itself', async () => {
    const { demo, context } = await setUp();
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    const watch = await watchDashboardFrame(acme.frame());

    await acme.page.getByTestId('toggle-outage').click();
    await eventually('the outage', async () => (await acme.page.getByTestId('toggle-outage').getAttribute('aria-pressed')) === 'true');
    await acme.page.getByTestId('expire-token').click();
    await eventually('the expiry to be confirmed', async () => (await acme.page.getByTestId('action-result').textContent())?.includes('refuses'));

    await eventually(
      'a retryable error',
      async () => (await acme.events('dashboard-error')).some((e) => e.detail.retryable === true),
      NOTICE_EXPIRY_MS,
    );
    expect(['refreshing', 'error']).toContain(await acme.state());
    const before = acme.tokenRequests.length;
    await sleep(8_000);
    const during = acme.tokenRequests.length - before;
    // Backoff with full jitter (1 s, 2 s, 4 s … ceilings) makes a handful; a retry loop, hundreds.
    expect(during).toBeLessThanOrEqual(10);
    expect(['refreshing', 'error']).toContain(await acme.state());

    await acme.page.getByTestId('toggle-outage').click();
    await eventually('the outage to end', async () => (await acme.page.getByTestId('toggle-outage').getAttribute('aria-pressed')) === 'false');
    await eventually('the element to recover', async () => (await acme.state()) === 'ready', 45_000, 250);
    await eventually('the dashboard to run on the new token', async () => {
      const dashboard = await acme.dashboard();
      return dashboard.generation === 2 && dashboard.state === 'ready';
    });
    expect((await watch.report()).blank).toBe(0);
    expect(acme.frameNavigations).toHaveLength(1);
  }, 120_000);

  it('stops, without a retry storm, once the session is gone', async () => {
    // A short TTL makes the element go back to the BFF within seconds.
    const { demo, context } = await setUp({ tokenTtlSeconds: 3, refreshMarginSeconds: 1 });
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    const elsewhere = await context.newPage();
    await elsewhere.goto(`${demo.url}/logout`);
    expect((await context.cookies()).some((cookie) => cookie.name === 'northwind_session')).toBe(false);

    await eventually('the unauthenticated state', async () => (await acme.state()) === 'unauthenticated', 20_000);
    const errors = await acme.events('dashboard-error');
    expect(errors.at(-1)?.detail).toMatchObject({ code: 'unauthenticated', retryable: false });
    const after = acme.tokenRequests.length;
    await sleep(8_000);
    expect(acme.tokenRequests.length - after).toBeLessThanOrEqual(1);
    expect(await acme.state()).toBe('unauthenticated');
    await expect.poll(() => acme.page.getByTestId('element-state').textContent()).toBe('unauthenticated');
  });

  it("hands one tab's rotation to the other tab before its token dies", async () => {
    const { demo, context } = await setUp();
    const first = await openApp(context, demo, 'acme');
    await waitForReady(first);
    const second = await openApp(context, demo, 'acme');
    await waitForReady(second);
    const oldToken = await latestToken(first);
    expect(await latestToken(second)).toBe(oldToken);
    const watchSecond = await watchDashboardFrame(second.frame());
    const secondRequests = second.tokenRequests.length;

    // The first tab's dashboard reports its token dead, as it does when the vendor refuses it.
    await postFromDashboard(first.frame(), demo.url, { event: 'tokenExpired', detail: { dashboardId: 'sales-overview' } });
    await eventually('the first tab to rotate', async () => (await first.dashboard()).generation === 2);
    const newToken = await latestToken(first);
    expect(newToken).not.toBe(oldToken);
    expect(demo.emulator.resolveToken(oldToken)).toBeUndefined();

    await eventually('the second tab to take the new token', async () => {
      const dashboard = await second.dashboard();
      return dashboard.generation === 2 && dashboard.state === 'ready';
    });
    // Its dashboard re-reads its data with the new token, still fine: no dead token, no expired page.
    await waitForReady(second);
    const report = await watchSecond.report();
    expect(report.states).not.toContain('expired');
    expect(report.blank).toBe(0);
    expect(second.tokenRequests.length - secondRequests).toBeLessThanOrEqual(1);
    expect(second.frameNavigations).toHaveLength(1);
  });
});
