import { describe, expect, it } from 'vitest';
import { engines, type FrameRef } from '../support/browsers/index.js';
import { eventually, openApp, sampleHost, testId, useDemo, waitForReady, type AppTab, type HostSample } from './harness.js';

/** The dashboard frames of the tab, with their URLs. */
async function dashboardFrames(app: AppTab): Promise<{ frame: FrameRef; url: string }[]> {
  const frames = await Promise.all((await app.tab.frames()).map(async (frame) => ({ frame, url: await frame.url().catch(() => '') })));
  return frames.filter(({ url }) => url.includes('/iframe/'));
}
/** What the dashboard's multi-select has chosen, and how many rows it shows. */
const filtered = (frame: FrameRef) =>
  frame.evaluate(() => {
    const summary = document.querySelector<HTMLElement>('[data-testid="filter-summary"]');
    return `${summary?.dataset.chosen ?? ''} ${summary?.dataset.rows ?? ''}`;
  });

describe.each(engines())('demo in $name: a multi-select both ways and a locale switch', (engine) => {
  const run = useDemo(engine, { sharedDemo: true });

  it.skipIf(!engine.available)('host array -> filtered frame; viewer multi-select -> host array; locale-code at runtime with no blank frame', async () => {
    const app = await openApp(await run.newContext(), run.demo, 'acme');
    await waitForReady(app);
    const frame = await app.frame();
    // The demo applies {"rows": 8, "regions": ["EU", "US"]}: the frame filters its rows by the array.
    await eventually('the frame to filter by the demo’s array', async () => (await filtered(frame)) === 'EU,US 34');
    // Host -> frame: a new array.
    await app.tab.evaluate(() => {
      document.querySelector('embedded-dashboard')!.variables = { regions: ['APAC'] };
    });
    await eventually('the frame to filter by the new array', async () => (await filtered(frame)) === 'APAC 16');
    // Frame -> host: the viewer picks two regions in the dashboard's multi-select.
    await frame.evaluate(() => {
      const select = document.querySelector<HTMLSelectElement>('[data-testid="multi-select"]')!;
      for (const option of select.options) option.selected = option.value !== 'APAC';
      select.dispatchEvent(new Event('change', { bubbles: true }));
    });
    await eventually('dashboard-variable-change with an array', async () =>
      (await app.events('dashboard-variable-change')).some((e) => e.detail.name === 'regions' && JSON.stringify(e.detail.value) === '["EU","US"]'),
    );
    expect(await app.tab.evaluate(() => document.querySelector('embedded-dashboard')!.currentVariables.regions)).toEqual(['EU', 'US']);
    expect(JSON.parse((await app.tab.evaluate((s) => document.querySelector<HTMLTextAreaElement>(s)!.value, testId('variables-input'))) ?? '{}')).toEqual({
      regions: ['EU', 'US'],
    });

    // The locale switch: the new URL loads hidden, and one dashboard frame is visible on every animation frame.
    await sampleHost(app.tab);
    await app.tab.evaluate((s) => {
      const select = document.querySelector<HTMLSelectElement>(s)!;
      select.value = 'de-DE';
      select.dispatchEvent(new Event('change'));
    }, testId('locale-select'));
    const german = await eventually('one frame, with locale_code=de-DE', async () => {
      const frames = await dashboardFrames(app);
      return frames.length === 1 && new URL(frames[0]!.url).searchParams.get('locale_code') === 'de-DE' ? frames[0]!.frame : undefined;
    });
    await eventually('the element to be ready again', async () => (await app.state()) === 'ready');
    // A host animation frame after the swap (a loaded machine delays them), or none that shows another frame: then the check below says so.
    const sampled = () => app.tab.evaluate<HostSample[]>(() => window.__hostSamples ?? []);
    await eventually('a host animation frame after the swap', async () => {
      const seen = await sampled();
      return seen.length > 5 && seen.at(-1)!.visible[0] !== seen[0]!.visible[0];
    }).catch(() => undefined);
    const samples = await sampled();
    expect(samples.length).toBeGreaterThan(5);
    expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
    // A second frame took over (not the first one navigating in place, which blanks), visible only once its dashboard had loaded.
    const before = samples[0]!.visible[0]!;
    const after = samples.at(-1)!.visible[0]!;
    expect(after).not.toBe(before);
    const loadedAt = (await app.tab.evaluate(() => window.__loadedAt ?? {}))[after];
    expect(loadedAt).toBeDefined();
    expect(samples.find((s) => s.visible[0] === after)!.at).toBeGreaterThanOrEqual(loadedAt!);
    // The new frame formats for de-DE and keeps the viewer's choice.
    expect(await german.evaluate(() => document.body.dataset.locale)).toBe('de-DE');
    expect(await filtered(german)).toBe('EU,US 34');
    expect(await german.evaluate(() => document.querySelector('[data-testid="last-refreshed"] time')?.textContent ?? '')).not.toBe('');
    expect((await app.events('dashboard-error')).map((e) => e.detail.code)).toEqual([]);
    expect(await app.console()).toEqual([]);
  });
});
