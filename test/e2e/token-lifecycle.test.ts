import { describe, expect, it } from 'vitest';
import type { StartDemoOptions } from '../../demo/server/start-demo.js';
import { engines } from '../support/browsers/index.js';
import {
  eventually,
  expireWithButton,
  firstToken,
  latestToken,
  openApp,
  PIN_JITTER_COOKIE,
  postFromDashboard,
  setOutage,
  sleep,
  tokenStatuses,
  useDemo,
  waitForGeneration,
  waitForReady,
  watchDashboardFrame,
} from './harness.js';

// The dashboards re-read their data every second (harness): that is when they notice a dead token.
const NOTICE_EXPIRY_MS = 10_000;
/** The element's backoff ceiling (60 s) plus room: the longest a pending retry may wait. */
const MAX_BACKOFF_WAIT_MS = 70_000;

/**
 * The engines at once (each its own browser and, per test, its own demo and context): their
 * scenarios mostly wait (expiries noticed, backoff, the rotation interval), so they overlap; one
 * engine's run stays in order.
 */
describe.concurrent.each(engines())('demo in $name', (engine) => {
  describe.sequential('the token lifecycle', () => {
    const run = useDemo(engine);

    /** A demo and a browser context of the test's own. */
    const setUp = async (options?: StartDemoOptions) => ({ demo: await run.startDemo(options), context: await run.newContext() });

    it.skipIf(!engine.available)('swaps an expired token inside the running dashboard: no navigation, no blank frame', async () => {
      const { demo, context } = await setUp();
      const acme = await openApp(context, demo, 'acme');
      await waitForReady(acme);
      expect((await acme.dashboard()).generation).toBe(1);
      const loaded = await acme.dashboardDocument();
      const oldToken = await latestToken(acme);
      const watch = await watchDashboardFrame(await acme.frame());

      await expireWithButton(acme);
      expect(demo.emulator.resolveToken(oldToken)).toBeUndefined();

      await waitForGeneration(acme, 2, NOTICE_EXPIRY_MS);
      const report = await watch.report();
      expect(report.states).toContain('expired');
      expect(report.frames).toBeGreaterThan(10);
      expect(report.blank).toBe(0);
      expect(await acme.dashboardDocument()).toBe(loaded);
      expect((await acme.events('dashboard-token')).map((e) => e.detail.reason)).toEqual(['initial', 'rotate']);
      const newToken = await latestToken(acme);
      expect(newToken).not.toBe(oldToken);
      expect(demo.emulator.resolveToken(newToken)?.providedId).toBe('acme');
      const frame = await acme.frame();
      await eventually(
        'Acme in the dashboard',
        async () => (await frame.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)) === 'Acme Corp',
      );
      // The demo's element reports its timings: the load's beacon and the rotation's reached the BFF,
      // which observed them into its histograms (what the status panel reads, /api/vendor/status).
      await eventually('the load and the renewal in the BFF histograms', async () => {
        const { loads, renewals } = await acme.tab.evaluate(async () => {
          const status = (await (await fetch('/api/vendor/status')).json()) as { timings: { loads: number; renewals: number } };
          return status.timings;
        });
        return loads === 1 && renewals >= 1;
      });
      expect(await acme.console()).toEqual([]);
    });

    it.skipIf(!engine.available)(
      'recovers from a second expiry that comes right after a rotation',
      async () => {
        // The BFF's minimum rotation interval (default 10 s) is still running when the second
        // expiry is noticed: the element must still end up on a working token, not on the dead one.
        const { demo, context } = await setUp();
        const acme = await openApp(context, demo, 'acme');
        await waitForReady(acme);
        const loaded = await acme.dashboardDocument();
        await expireWithButton(acme);
        await waitForGeneration(acme, 2, NOTICE_EXPIRY_MS);
        const second = await latestToken(acme);

        const beforeSecondExpiry = (await acme.tokenRequests()).length;
        await expireWithButton(acme);
        expect(demo.emulator.resolveToken(second)).toBeUndefined();
        await waitForGeneration(acme, 3, 30_000);
        // The BFF said "not yet" (429, Retry-After) and the element waited, then rotated: no loop.
        const statuses = await tokenStatuses(acme, beforeSecondExpiry);
        expect(statuses[0]).toBe(429);
        expect(statuses.at(-1)).toBe(200);
        expect(statuses.length).toBeLessThanOrEqual(3);
        const third = await latestToken(acme);
        expect(third).not.toBe(second);
        expect(demo.emulator.resolveToken(third)?.providedId).toBe('acme');
        expect(await acme.dashboardDocument()).toBe(loaded);
      },
      60_000,
    );

    it.skipIf(!engine.available)('refreshes a short-lived token before it expires, without reloading the dashboard', async () => {
      // The element's default margin: a 6 s token is renewed after 4 s (the protocol's renewal rule).
      const { demo, context } = await setUp({ tokenTtlSeconds: 6 });
      const acme = await openApp(context, demo, 'acme');
      await waitForReady(acme);
      const loaded = await acme.dashboardDocument();
      // The first token answered, not the latest: the first renewal (4 s) may already be in by now.
      const first = await firstToken(acme);
      const initial = (await acme.events('dashboard-token'))[0];
      expect(initial?.detail.reason).toBe('initial');
      expect(typeof initial?.detail.expiresAt).toBe('number');

      await eventually('a refresh', async () => (await acme.events('dashboard-token')).some((e) => e.detail.reason === 'refresh'));
      // Later generations follow every 4 s: a slow engine's poll may first see the third.
      await eventually('data on a renewed token', async () => {
        const dashboard = await acme.dashboard();
        return dashboard.generation >= 2 && dashboard.state === 'ready';
      });
      expect(await latestToken(acme)).not.toBe(first);
      expect(await acme.dashboardDocument()).toBe(loaded);
    });

    it.skipIf(!engine.available)(
      'rides out a vendor outage with bounded retries and recovers by itself',
      async () => {
        const { demo, context } = await setUp();
        // The element's jitter pinned at one half (by the page probe): each retry waits exactly half its backoff ceiling.
        await context.setCookie(demo.url, PIN_JITTER_COOKIE, 'half');
        const acme = await openApp(context, demo, 'acme');
        await waitForReady(acme);
        expect(await acme.tab.evaluate(() => Math.random())).toBe(0.5);
        const loaded = await acme.dashboardDocument();
        const watch = await watchDashboardFrame(await acme.frame());

        await setOutage(acme, true);
        const beforeExpiry = (await acme.tokenRequests()).length;
        await expireWithButton(acme);
        await eventually('a retryable error', async () => (await acme.events('dashboard-error')).some((e) => e.detail.retryable === true), NOTICE_EXPIRY_MS);
        expect(await acme.state()).toBe('refreshing');

        // Count the retries by their events, not in a time window: the first failure and three
        // retries, each answered with a retryable error. Backoff shows as a floor under each wait
        // (a timer never fires early, however slow the machine): half of 1 s, 2 s, 4 s, less 100 ms for
        // clock granularity. A retry loop without backoff would send them back to back.
        const RETRIES = 3;
        const failures = async () => (await acme.events('dashboard-error')).filter((e) => e.detail.retryable === true).length;
        await eventually('three retries, each failed', async () => (await failures()) >= RETRIES + 1, MAX_BACKOFF_WAIT_MS);
        const requests = await acme.tokenRequests();
        const sent = requests.slice(beforeExpiry, beforeExpiry + RETRIES + 1).map((request) => request.at);
        const waits = sent.slice(1).map((at, i) => at - sent[i]!);
        expect(waits).toHaveLength(RETRIES);
        waits.forEach((wait, i) => expect(wait, `wait before retry ${i + 1}`).toBeGreaterThanOrEqual(500 * 2 ** i - 100));
        // One request per failure: no retry the element did not report.
        expect(requests.length - beforeExpiry).toBeLessThanOrEqual((await failures()) + 1);
        const duringOutage = requests.length;
        for (const status of await tokenStatuses(acme, beforeExpiry)) expect(status).toBeGreaterThanOrEqual(500);
        expect(await acme.state()).toBe('refreshing');

        await setOutage(acme, false);
        // Nothing pokes the element: its next scheduled retry finds the vendor back.
        await waitForGeneration(acme, 2, MAX_BACKOFF_WAIT_MS);
        expect((await tokenStatuses(acme, duringOutage)).at(-1)).toBe(200);
        expect((await watch.report()).blank).toBe(0);
        expect(await acme.dashboardDocument()).toBe(loaded);
      },
      120_000,
    );

    it.skipIf(!engine.available)('stops, without a retry storm, once the session is gone', async () => {
      const { demo, context } = await setUp();
      const acme = await openApp(context, demo, 'acme');
      await waitForReady(acme);
      const token = await latestToken(acme);
      const elsewhere = await context.newTab();
      await elsewhere.goto(`${demo.url}/logout`);
      expect((await context.cookies(demo.url)).some((cookie) => cookie.name === 'northwind_session')).toBe(false);
      const afterSignOut = (await acme.tokenRequests()).length;

      // The vendor refuses the token: the dashboard asks for a new one, and the BFF says 401.
      expect(demo.emulator.expireToken(token)).toBe(true);
      await eventually('the unauthenticated state', async () => (await acme.state()) === 'unauthenticated', NOTICE_EXPIRY_MS);
      const errors = await acme.events('dashboard-error');
      expect(errors.at(-1)?.detail).toMatchObject({ code: 'unauthenticated', retryable: false });
      // A retry, even with backoff, would come within a second or two (first delay < 1 s).
      await sleep(3_000);
      expect(await tokenStatuses(acme, afterSignOut)).toEqual([401]);
      expect(await acme.state()).toBe('unauthenticated');
      expect(await acme.text('element-state')).toBe('unauthenticated');
    });

    it.skipIf(!engine.available)("hands one tab's rotation to the other tab before its token dies", async () => {
      // Slow data refreshes here: a refresh landing between the vendor's rotation and the
      // broadcast (milliseconds) would meet the dead token, which is not what this checks.
      const { demo, context } = await setUp({ dashboardRefreshSeconds: 60 });
      const first = await openApp(context, demo, 'acme');
      await waitForReady(first);
      const second = await openApp(context, demo, 'acme');
      await waitForReady(second);
      const secondDocument = await second.dashboardDocument();
      const oldToken = await latestToken(first);
      expect(await latestToken(second)).toBe(oldToken);
      const watchSecond = await watchDashboardFrame(await second.frame());
      const secondRequests = (await second.tokenRequests()).length;

      // The first tab's dashboard reports its token dead, as it does when the vendor refuses it:
      // twice, the report and its confirmation (the element sends the token again first, §6).
      for (let i = 0; i < 2; i++) await postFromDashboard(await first.frame(), demo.url, { event: 'tokenExpired', detail: { dashboardId: 'sales-overview' } });
      await waitForGeneration(first, 2);
      const newToken = await latestToken(first);
      expect(newToken).not.toBe(oldToken);
      expect(demo.emulator.resolveToken(oldToken)).toBeUndefined();

      // The second tab's dashboard loads its data with the adopted token at once: no dead token,
      // no expired page, and no request of its own.
      await waitForGeneration(second, 2);
      const report = await watchSecond.report();
      expect(report.states).not.toContain('expired');
      expect(report.blank).toBe(0);
      expect((await second.tokenRequests()).length).toBe(secondRequests);
      expect((await second.events('dashboard-token')).at(-1)?.detail.reason).toBe('rotate');
      expect(await second.dashboardDocument()).toBe(secondDocument);
    });
  });
});
