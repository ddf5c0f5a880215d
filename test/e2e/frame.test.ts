import { describe, expect, it } from 'vitest';
import { chromiumTool } from '../support/tools.js';
import { eventually, iframeHeight, openApp, postFromDashboard, useChromiumDemo, waitForReady } from './chromium-harness.js';

const tool = chromiumTool();

/** A page that posts dashboard-looking messages to whatever frames it, with any target origin. */
const FORGER_PAGE = `<!doctype html><title>forger</title><script>
  const messages = [
    { event: 'dashboardResized', detail: { dashboardHeight: 4321 } },
    { event: 'tokenExpired', detail: { dashboardId: 'sales-overview' } },
    { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 4321, loadTime: 1 } },
    { event: 'variableUpdated', detail: { varName: 'region', newValue: 'Globex' } },
  ];
  for (const message of messages) parent.postMessage(message, '*');
  window.sent = true;
</script>`;

describe.skipIf(!tool.available)('demo in Chromium: the dashboard frame', () => {
  const chromium = useChromiumDemo(tool.path, { sharedDemo: true });

  it('follows the dashboard height up and down', async () => {
    const context = await chromium.newContext({ viewport: { width: 1280, height: 800 } });
    const acme = await openApp(context, chromium.demo, 'acme');
    await waitForReady(acme);
    const dashboard = acme.page.frameLocator('embedded-dashboard iframe');
    const closed = await iframeHeight(acme.page);

    await dashboard.getByTestId('toggle-details').click();
    await expect.poll(() => dashboard.getByTestId('details-panel').isVisible()).toBe(true);
    const open = await eventually('the frame to grow', async () => {
      const height = await iframeHeight(acme.page);
      return height > closed + 100 ? height : 0;
    });

    await dashboard.getByTestId('toggle-details').click();
    await eventually('the frame to shrink back', async () => Math.abs((await iframeHeight(acme.page)) - closed) <= 2);
    const heights = (await acme.events('dashboard-resize')).map((e) => e.detail.height as number);
    expect(heights.some((h) => Math.abs(h - open) <= 2)).toBe(true);
    expect(heights.at(-1)).toBeLessThan(open);
    expect(acme.frameNavigations).toHaveLength(1);
  });

  it('ignores messages from any window but its own dashboard frame', async () => {
    const { demo } = chromium;
    const context = await chromium.newContext();
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    const emulatorOrigin = new URL(acme.frame().url()).origin;
    // One forger on a third origin, one on the dashboard's own origin but in another window.
    const forgers = ['http://forger.invalid/forge.html', `${emulatorOrigin}/forge.html`];
    for (const url of forgers) await context.route(url, (route) => route.fulfill({ contentType: 'text/html', body: FORGER_PAGE }));

    const height = await iframeHeight(acme.page);
    const requests = acme.tokenRequests.length;
    const events = (await acme.events()).length;
    const { generation } = await acme.dashboard();

    await acme.page.evaluate((urls) => {
      // Counts the messages that reach the page from anything but the dashboard. The element's
      // own listener was added first, so it has handled each one the count includes.
      const dashboard = document.querySelector('embedded-dashboard')?.shadowRoot?.querySelector('iframe')?.contentWindow;
      const counter = window as unknown as { foreign: number };
      counter.foreign = 0;
      addEventListener('message', (event) => {
        if (event.source !== dashboard) counter.foreign += 1;
      });
      for (const url of urls) {
        const frame = document.createElement('iframe');
        frame.src = url;
        document.body.append(frame);
      }
      // And the host page posting to itself.
      window.postMessage({ event: 'dashboardResized', detail: { dashboardHeight: 4321 } }, '*');
    }, forgers);
    // Four forged messages from each forger, one from the page itself.
    const expected = forgers.length * 4 + 1;
    const foreign = () => acme.page.evaluate(() => (window as unknown as { foreign: number }).foreign);
    await eventually('every forged message to arrive', async () => (await foreign()) === expected);
    // Let any reaction render: two animation frames.
    await acme.page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

    expect(await foreign()).toBe(expected);
    expect(await iframeHeight(acme.page)).toBe(height);
    expect(await acme.state()).toBe('ready');
    expect(acme.tokenRequests.length).toBe(requests);
    expect((await acme.events()).length).toBe(events);
    expect((await acme.dashboard()).generation).toBe(generation);

    // The same message from the real dashboard frame is obeyed: the check above could fail.
    await postFromDashboard(acme.frame(), demo.url, { event: 'dashboardResized', detail: { dashboardHeight: 1234 } });
    await eventually('the genuine resize', async () => (await iframeHeight(acme.page)) === 1234);
    expect(acme.tokenRequests.length).toBe(requests);
  });
});
