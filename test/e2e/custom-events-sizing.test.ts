import { describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import { eventually, iframeHeight, openApp, testId, useDemo, waitForReady, type AppTab } from './harness.js';

/** The dashboard's own events the host page heard, as `{ name, detail }`. */
const customEvents = async (app: AppTab) => (await app.events('dashboard-custom-event')).map((e) => e.detail as { name: string; detail: unknown });

describe.each(engines())('demo in $name: the dashboard’s own events, and no jump', (engine) => {
  const run = useDemo(engine, { sharedDemo: true });

  it.skipIf(!engine.available)('hears analytics and the JS Event Button; a repeat view starts at the remembered height', async () => {
    const acme = await openApp(await run.newContext({ viewport: { width: 1280, height: 800 } }), run.demo, 'acme');
    await waitForReady(acme);
    await eventually('analyticsEventFired for the page view', async () => (await customEvents(acme)).some((e) => e.name === 'analyticsEventFired'));
    expect((await customEvents(acme)).find((e) => e.name === 'analyticsEventFired')!.detail).toMatchObject({
      name: 'Dashboard Page Viewed',
      properties: { customer_name: 'Acme Corp' },
    });
    // A click by the page's own DOM: the button may be below the fold of the viewport (a driver's click is by coordinates in WebKit).
    await (await acme.frame()).evaluate((selector) => document.querySelector<HTMLButtonElement>(selector)!.click(), testId('js-event-button'));
    await eventually('the JS Event Button’s event', async () => (await customEvents(acme)).some((e) => e.name === 'exportRequested'));
    expect((await customEvents(acme)).find((e) => e.name === 'exportRequested')!.detail).toEqual({ customerName: 'Acme Corp', customerProvidedId: 'acme' });

    const height = await iframeHeight(acme.tab);
    expect(height).toBeGreaterThan(400);
    // The first view: the dashboard says the height it will have before its data (dashboardReadyToLoad,
    // measured on its layout), and the frame is sized to it once, before loading: nothing below it
    // jumps when the data is drawn.
    const said = (await acme.messages()).find((m) => m.event === 'dashboardReadyToLoad')?.detail as { dashboardHeight?: number } | undefined;
    expect(
      Math.abs((said?.dashboardHeight ?? 0) - height),
      `${engine.name}: dashboardReadyToLoad's height ${said?.dashboardHeight} vs ${height}`,
    ).toBeLessThanOrEqual(2);
    const firstView = (await acme.events()).filter((e) => e.type === 'dashboard-resize' || e.type === 'dashboard-load');
    expect(firstView.map((e) => e.type).slice(0, 2)).toEqual(['dashboard-resize', 'dashboard-load']);
    expect(Math.abs((firstView[0]!.detail as { height: number }).height - height), `${engine.name}: the first resize`).toBeLessThanOrEqual(2);
    expect(Math.abs(firstView[1]!.frameHeight - height), `${engine.name}: the frame at dashboard-load`).toBeLessThanOrEqual(2);
    // The same tab again (the page session): the frame has the dashboard's height before it loads.
    await acme.tab.goto(`${run.demo.url}/app`);
    await waitForReady(acme);
    const load = (await acme.events('dashboard-load'))[0]!;
    expect(Math.abs(load.frameHeight - height)).toBeLessThanOrEqual(2);
    expect(await acme.console()).toEqual([]);
  });
});
