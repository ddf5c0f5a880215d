import { describe, expect, it } from 'vitest';
import { isCompactJwe } from '@embedded-dashboard/protocol';
import { engines } from '../support/browsers/index.js';
import {
  eventually,
  expireWithButton,
  latestToken,
  openApp,
  postFromDashboard,
  sleep,
  tokenStatuses,
  useDemo,
  waitForGeneration,
  waitForReady,
  watchDashboardFrame,
  type AppTab,
} from './harness.js';

// The dashboards re-read their data every second (harness): that is when they notice a revoked token.
const NOTICE_EXPIRY_MS = 10_000;

/** `/app?protocol=explo-jwt` (signed in through `/login?…&protocol=explo-jwt`): the vendor's embed tokens, minted by the demo's second BFF (/embed-jwt). */
const openJwtApp = (context: Parameters<typeof openApp>[0], demo: Parameters<typeof openApp>[1], customer: string): Promise<AppTab> =>
  openApp(context, demo, `${customer}&protocol=explo-jwt`);

/** The element's iframes (its shadow root's and a slotted one) as `src`s. */
const frameSources = (app: AppTab) =>
  app.tab.evaluate(() => {
    const element = document.querySelector('embedded-dashboard')!;
    return [...element.shadowRoot!.querySelectorAll('iframe'), ...element.querySelectorAll('iframe')].map((frame) => frame.getAttribute('src'));
  });

/** The engines at once (each its own browser and demos), each engine's scenarios in order. */
describe.concurrent.each(engines())('demo in $name', (engine) => {
  describe.sequential('embed tokens (protocol="explo-jwt")', () => {
    // One demo for the block (each test signs in on a context of its own): a demo start per test
    // would cost CI time for nothing these tests need apart.
    const run = useDemo(engine, { sharedDemo: true });
    const setUp = async () => ({ demo: run.demo, context: await run.newContext() });

    it.skipIf(!engine.available)('loads with an embed token in the frame URL, and renews it in the running frame when the vendor revokes it', async () => {
      const { demo, context } = await setUp();
      const acme = await openJwtApp(context, demo, 'acme');
      await waitForReady(acme);
      expect(await acme.tab.evaluate(() => document.getElementById('frame-protocol')?.textContent)).toMatch(/^explo-jwt/);
      const first = await latestToken(acme);
      expect(isCompactJwe(first)).toBe(true);
      expect((await acme.tokenRequests()).map((r) => [r.path, r.dashboard])).toEqual([['/embed-jwt/token', 'sales-overview']]);
      const [src] = await frameSources(acme);
      expect(new URL(src!).pathname).toBe(`/iframe/${first}/production`);
      expect(demo.emulator.resolveToken(first)?.providedId).toBe('acme');
      const loaded = await acme.dashboardDocument();
      const watch = await watchDashboardFrame(await acme.frame());
      const vendorBefore = demo.emulator.stats().requests;

      // "Expire the token now": the frame says customerJwtExpired, the element renews in place.
      await expireWithButton(acme);
      await waitForGeneration(acme, 2, NOTICE_EXPIRY_MS);
      const report = await watch.report();
      expect(report.states).toContain('expired');
      expect(report.blank).toBe(0);
      expect(await acme.dashboardDocument()).toBe(loaded);
      expect(await frameSources(acme)).toEqual([src]);
      const renewed = await latestToken(acme);
      expect(renewed).not.toBe(first);
      expect((await acme.tokenRequests()).at(-1)).toMatchObject({ path: '/embed-jwt/token/rotate', dashboard: 'sales-overview', status: 200 });
      expect((await acme.events('dashboard-token')).map((e) => e.detail.reason)).toEqual(['initial', 'rotate']);
      expect((await acme.events('dashboard-load')).length).toBe(1);
      // A renewal is a mint in the BFF: the vendor was not called for it.
      expect(demo.emulator.stats().requests).toEqual(vendorBefore);
      expect(await acme.console()).toEqual([]);
    });

    it.skipIf(!engine.available)('ignores a customerJwtExpired from another origin, and refuses a token for another dashboard', async () => {
      const { demo, context } = await setUp();
      const acme = await openJwtApp(context, demo, 'acme');
      await waitForReady(acme);
      const requests = (await acme.tokenRequests()).length;

      // Forged: from the host page itself, and from a frame of another origin (the emulator under
      // the other loopback name, which the page may frame, but which is not the dashboard's origin).
      const dashboardOrigin = new URL(await (await acme.frame()).url()).origin;
      const foreign = dashboardOrigin.includes('localhost')
        ? dashboardOrigin.replace('localhost', '127.0.0.1')
        : dashboardOrigin.replace('127.0.0.1', 'localhost');
      await acme.tab.evaluate((url) => {
        const frame = document.createElement('iframe');
        frame.src = url;
        document.body.append(frame);
      }, `${foreign}/iframe/not-a-dashboard`);
      const forger = await acme.tab.frame((url) => url.startsWith(foreign), 10_000);
      await eventually('the foreign frame to load', () => forger.evaluate(() => document.readyState === 'complete'));
      await postFromDashboard(forger, demo.url, { event: 'customerJwtExpired', detail: {} });
      await acme.tab.evaluate(() => window.postMessage({ event: 'customerJwtExpired', detail: {} }, '*'));
      await sleep(1_500);
      expect((await acme.tokenRequests()).length).toBe(requests);
      expect((await acme.dashboard()).generation).toBe(1);

      // A valid token for the other dashboard, handed to this frame by its own host page: refused.
      const other = await acme.tab.evaluate(async () => {
        const answer = await fetch('/embed-jwt/token', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{"dashboard":"support-metrics"}',
        });
        return ((await answer.json()) as { token: string }).token;
      });
      await acme.tab.evaluate(
        ([jwt, origin]) => {
          const frame = document.querySelector('embedded-dashboard')!.shadowRoot!.querySelector('iframe')!;
          frame.contentWindow!.postMessage({ event: 'updateCustomerJwt', detail: { jwt } }, origin);
        },
        [other, dashboardOrigin] as const,
      );
      await eventually('the dashboard to refuse it', async () => (await acme.dashboard()).state === 'refused');
      const frame = await acme.frame();
      expect(await frame.evaluate(() => document.getElementById('status')?.textContent)).toMatch(/does not accept/);
      // The BFF refuses a dashboard it does not embed.
      const refused = await acme.tab.evaluate(
        async () =>
          (await fetch('/embed-jwt/token', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"dashboard":"payroll"}' })).status,
      );
      expect(refused).toBe(403);
      await acme.tab.evaluate(() => document.querySelector('embedded-dashboard')!.setAttribute('dashboard', 'payroll'));
      await eventually('the element to show the refusal', async () => (await acme.state()) === 'error');
      expect((await acme.events('dashboard-error')).at(-1)?.detail).toMatchObject({ code: 'forbidden', retryable: false });
    });

    it.skipIf(!engine.available)("hands one tab's renewal to the other tab of the same dashboard, in its running frame", async () => {
      const { demo, context } = await setUp();
      const first = await openJwtApp(context, demo, 'acme');
      await waitForReady(first);
      const second = await openJwtApp(context, demo, 'acme');
      await waitForReady(second);
      const secondDocument = await second.dashboardDocument();
      const secondRequests = (await second.tokenRequests()).length;

      await postFromDashboard(await first.frame(), demo.url, { event: 'customerJwtExpired', detail: {} });
      await waitForGeneration(first, 2);
      const renewed = await latestToken(first);
      expect(await tokenStatuses(first)).toEqual([200, 200]);

      await waitForGeneration(second, 2);
      expect((await second.tokenRequests()).length).toBe(secondRequests);
      expect((await second.events('dashboard-token')).at(-1)?.detail.reason).toBe('rotate');
      expect(await second.dashboardDocument()).toBe(secondDocument);
      expect(demo.emulator.resolveToken(renewed)?.providedId).toBe('acme');
    });
  });
});
