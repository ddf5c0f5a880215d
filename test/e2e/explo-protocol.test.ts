import { describe, expect, it } from 'vitest';
import { engines, type FrameRef } from '../support/browsers/index.js';
import { eventually, expireWithButton, openApp, sampleHost, sleep, useDemo, type AppTab, type HostSample } from './harness.js';

/** The dashboard frames of the tab, with their URLs. */
async function dashboardFrames(app: AppTab): Promise<{ frame: FrameRef; url: string }[]> {
  const frames = await Promise.all((await app.tab.frames()).map(async (frame) => ({ frame, url: await frame.url().catch(() => '') })));
  return frames.filter(({ url }) => url.includes('/iframe/'));
}
const frameToken = (url: string) => new URL(url).pathname.split('/')[3];
const frameReady = (frame: FrameRef) => frame.evaluate(() => document.body.dataset.state === 'ready');

/** The engines at once (each its own browser and demos), each engine's scenarios in order. */
describe.concurrent.each(engines())('demo in $name', (engine) => {
  describe.sequential('protocol="explo" (the vendor embed, token in the URL)', () => {
    const run = useDemo(engine);

    /** Acme's `/app?protocol=explo` on a demo of the test's own, once the element is ready. */
    async function openExplo(): Promise<AppTab> {
      const demo = await run.startDemo();
      const app = await openApp(await run.newContext(), demo, 'acme');
      await app.tab.goto(`${demo.url}/app?protocol=explo`);
      await eventually('the element to be ready', async () => (await app.state()) === 'ready');
      return app;
    }

    it.skipIf(!engine.available)('reaches ready with the token in the URL, the group properties and URL variables shown, and says which protocol', async () => {
      const app = await openExplo();
      const [{ frame, url }] = (await dashboardFrames(app)) as [{ frame: FrameRef; url: string }];
      expect(new URL(url).pathname).toMatch(/^\/iframe\/sales-overview\/[A-Za-z0-9_-]+\/production$/);
      await eventually('data in the frame', () => frameReady(frame));
      expect(await frame.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');
      expect(await app.tab.evaluate(() => document.querySelector('#frame-protocol')?.textContent)).toContain('explo');
      expect((await app.events('dashboard-load')).length).toBe(1);
      expect(await app.console()).toEqual([]);
    });

    it.skipIf(!engine.available)('survives two expiries: each rotation swaps in a new frame with zero animation frames without dashboard content', async () => {
      const app = await openExplo();
      await sampleHost(app.tab);
      for (let round = 1; round <= 2; round++) {
        const [old] = await dashboardFrames(app);
        await eventually('data in the frame', () => frameReady(old!.frame));
        const oldToken = frameToken(old!.url);
        await expireWithButton(app);
        // The dashboard notices the dead token, says customerJwtExpired; the element rotates and
        // loads the new URL in a hidden frame beside the visible one.
        const fresh = await eventually('a second frame with a new token', async () => (await dashboardFrames(app)).find((f) => frameToken(f.url) !== oldToken));
        await eventually('the old frame to be dropped', async () => {
          const frames = await dashboardFrames(app);
          return frames.length === 1 && frames[0]!.url === fresh.url;
        });
        await eventually('the element to be ready again', async () => (await app.state()) === 'ready');
        await sleep(200);
        const samples = await app.tab.evaluate<HostSample[]>(() => window.__hostSamples ?? []);
        expect(samples.length).toBeGreaterThan(10);
        // Every animation frame shows exactly one dashboard iframe...
        expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
        // ...and the new one becomes the visible one only after its dashboard content was there.
        const freshId = await app.tab.evaluate((token) => {
          const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
          return frames.find((f) => f.src.includes(`/${token}/`))?.id;
        }, frameToken(fresh.url));
        // (The emulator's page renders its content, then posts dashboardLoaded; the element swaps on it.)
        const loadedAt = (await app.tab.evaluate(() => window.__loadedAt ?? {}))[freshId!];
        const firstVisible = samples.find((s) => s.visible[0] === freshId);
        expect(loadedAt).toBeDefined();
        expect(firstVisible).toBeDefined();
        expect(firstVisible!.at).toBeGreaterThanOrEqual(loadedAt!);
        expect(await fresh.frame.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');
        expect((await app.events('dashboard-token')).filter((e) => e.detail.reason === 'rotate')).toHaveLength(round);
        await app.tab.evaluate(() => {
          window.__hostSamples!.length = 0;
          window.__loadedAt = {};
        });
      }
      // A second expiry inside the BFF's minimum rotation interval is answered 429 and retried: the only error allowed.
      expect((await app.events('dashboard-error')).filter((e) => e.detail.code !== 'rate_limited')).toEqual([]);
    });

    it.skipIf(!engine.available)('carries variables both ways in the vendor shapes, and ignores a forged expiry from another origin', async () => {
      const app = await openExplo();
      const [{ frame }] = (await dashboardFrames(app)) as [{ frame: FrameRef; url: string }];
      await eventually('data in the frame', () => frameReady(frame));
      // Host -> frame: updateExploDashboardVariables.
      await app.tab.evaluate(() => document.querySelector('embedded-dashboard')!.setAttribute('variables', '{"region":"APAC"}'));
      await eventually('the frame to show the new variable', () =>
        frame.evaluate(() => (document.querySelector<HTMLInputElement>('[data-var="region"] input')?.value ?? '') === 'APAC'),
      );
      // Frame -> host: sendVariableUpdatedEvent becomes dashboard-variable-change.
      await frame.evaluate(() => {
        const input = document.querySelector<HTMLInputElement>('[data-var="region"] input')!;
        input.value = 'LATAM';
        input.dispatchEvent(new Event('change', { bubbles: true }));
      });
      await eventually('dashboard-variable-change', async () =>
        (await app.events('dashboard-variable-change')).some((e) => e.detail.name === 'region' && e.detail.value === 'LATAM'),
      );
      // A forged customerJwtExpired from another origin (the host page itself) is ignored.
      const rotationsBefore = (await app.tokenRequests()).length;
      await app.tab.evaluate(() => window.postMessage({ event: 'customerJwtExpired', detail: {} }, '*'));
      await sleep(500);
      expect((await app.tokenRequests()).length).toBe(rotationsBefore);
      expect(await dashboardFrames(app)).toHaveLength(1);
    });
  });
});
