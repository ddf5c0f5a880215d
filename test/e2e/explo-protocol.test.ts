import type { Frame, Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { chromiumTool } from '../support/tools.js';
import { eventually, openApp, useChromiumDemo, type AppTab } from './chromium-harness.js';

const tool = chromiumTool();

interface HostSample {
  at: number;
  /** Ids of the iframes a viewer can see (not hidden, not visibility:hidden). */
  visible: string[];
}

declare global {
  interface Window {
    __hostSamples?: HostSample[];
    /** When (epoch ms) each iframe, by id, posted dashboardLoaded: its content was rendered by then. */
    __loadedAt?: Record<string, number>;
  }
}

/** Every animation frame of the host page: which dashboard iframes are visible. */
async function sampleHost(page: Page): Promise<void> {
  await page.evaluate(() => {
    const samples: HostSample[] = (window.__hostSamples = []);
    window.__loadedAt = {};
    addEventListener('message', (event) => {
      if ((event.data as { event?: unknown } | null)?.event !== 'dashboardLoaded') return;
      const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
      const id = frames.find((f) => f.contentWindow === event.source)?.id;
      if (id) window.__loadedAt![id] = performance.timeOrigin + performance.now();
    }, true);
    const tick = () => {
      const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
      samples.push({
        at: performance.timeOrigin + performance.now(),
        visible: frames.filter((f) => !f.hidden && getComputedStyle(f).visibility !== 'hidden' && f.getBoundingClientRect().height > 0).map((f) => f.id),
      });
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}


const dashboardFrames = (tab: AppTab) => tab.page.frames().filter((f) => f.url().includes('/iframe/'));
const frameToken = (frame: Frame) => new URL(frame.url()).pathname.split('/')[3];

describe.skipIf(!tool.available)('demo in Chromium: protocol="explo" (the vendor embed, token in the URL)', () => {
  const chromium = useChromiumDemo(tool.path);

  /** Acme's `/app?protocol=explo` on a demo of the test's own, once the element is ready. */
  async function openExplo(): Promise<AppTab> {
    const demo = await chromium.startDemo();
    const context = await chromium.newContext();
    const tab = await openApp(context, demo, 'acme');
    await tab.page.waitForURL(/\/app/);
    await tab.page.goto(`${demo.url}/app?protocol=explo`);
    await eventually('the element to be ready', async () => (await tab.state()) === 'ready');
    return tab;
  }

  it('reaches ready with the token in the URL, the group properties and URL variables shown, and says which protocol', async () => {
    const tab = await openExplo();
    const [frame] = dashboardFrames(tab);
    expect(new URL(frame!.url()).pathname).toMatch(/^\/iframe\/sales-overview\/[A-Za-z0-9_-]+\/production$/);
    await eventually('data in the frame', () => frame!.evaluate(() => document.body.dataset.state === 'ready'));
    expect(await frame!.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');
    expect(await tab.page.locator('#frame-protocol').textContent()).toContain('explo');
    expect((await tab.events('dashboard-load')).length).toBe(1);
  });

  it('survives two expiries: each rotation swaps in a new frame with zero animation frames without dashboard content', async () => {
    const tab = await openExplo();
    await sampleHost(tab.page);
    for (let round = 1; round <= 2; round++) {
      const [old] = dashboardFrames(tab);
      await eventually('data in the frame', () => old!.evaluate(() => document.body.dataset.state === 'ready'));
      const oldToken = frameToken(old!);
      const answer = tab.page.waitForResponse((r) => r.url().endsWith('/api/token/expire'));
      await tab.page.getByTestId('expire-token').click();
      await answer;
      // The dashboard notices the dead token, says customerJwtExpired; the element rotates and
      // loads the new URL in a hidden frame beside the visible one.
      const fresh = await eventually('a second frame with a new token', () => dashboardFrames(tab).find((f) => frameToken(f) !== oldToken));
      await eventually('the old frame to be dropped', () => dashboardFrames(tab).length === 1 && dashboardFrames(tab)[0] === fresh);
      await eventually('the element to be ready again', async () => (await tab.state()) === 'ready');
      await tab.page.waitForTimeout(200);
      const samples = (await tab.page.evaluate(() => window.__hostSamples ?? [])) as HostSample[];
      expect(samples.length).toBeGreaterThan(10);
      // Every animation frame shows exactly one dashboard iframe...
      expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
      // ...and the new one becomes the visible one only after its dashboard content was there.
      const freshId = await tab.page.evaluate((token) => {
        const frames = [...(document.querySelector('embedded-dashboard')?.shadowRoot?.querySelectorAll('iframe') ?? [])];
        return frames.find((f) => f.src.includes(`/${token}/`))?.id;
      }, frameToken(fresh));
      // (The emulator's page renders its content, then posts dashboardLoaded; the element swaps on it.)
      const loadedAt = (await tab.page.evaluate(() => window.__loadedAt ?? {}))[freshId!];
      const firstVisible = samples.find((s) => s.visible[0] === freshId);
      expect(loadedAt).toBeDefined();
      expect(firstVisible).toBeDefined();
      expect(firstVisible!.at).toBeGreaterThanOrEqual(loadedAt!);
      expect(await fresh.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');
      expect((await tab.events('dashboard-token')).filter((e) => e.detail.reason === 'rotate')).toHaveLength(round);
      await tab.page.evaluate(() => {
        window.__hostSamples!.length = 0;
        window.__loadedAt = {};
      });
    }
    // A second expiry inside the BFF's minimum rotation interval is answered 429 and retried: the only error allowed.
    expect((await tab.events('dashboard-error')).filter((e) => e.detail.code !== 'rate_limited')).toEqual([]);
  });

  it('carries variables both ways in the vendor shapes, and ignores a forged expiry from another origin', async () => {
    const tab = await openExplo();
    const [frame] = dashboardFrames(tab);
    await eventually('data in the frame', () => frame!.evaluate(() => document.body.dataset.state === 'ready'));
    // Host -> frame: updateExploDashboardVariables.
    await tab.page.evaluate(() => document.querySelector('embedded-dashboard')!.setAttribute('variables', '{"region":"APAC"}'));
    await eventually('the frame to show the new variable', () =>
      frame!.evaluate(() => (document.querySelector<HTMLInputElement>('[data-var="region"] input')?.value ?? '') === 'APAC'),
    );
    // Frame -> host: sendVariableUpdatedEvent becomes dashboard-variable-change.
    await frame!.evaluate(() => {
      const input = document.querySelector<HTMLInputElement>('[data-var="region"] input')!;
      input.value = 'LATAM';
      input.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await eventually('dashboard-variable-change', async () => (await tab.events('dashboard-variable-change')).some((e) => e.detail.name === 'region' && e.detail.value === 'LATAM'));
    // A forged customerJwtExpired from another origin (a second frame on a foreign origin) is ignored.
    const rotationsBefore = tab.tokenRequests.length;
    await tab.page.evaluate(() => window.postMessage({ event: 'customerJwtExpired', detail: {} }, '*'));
    await tab.page.waitForTimeout(500);
    expect(tab.tokenRequests.length).toBe(rotationsBefore);
    expect(dashboardFrames(tab)).toHaveLength(1);
  });
});
