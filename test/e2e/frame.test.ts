import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines } from '../support/browsers/index.js';
import { eventually, iframeHeight, openApp, postFromDashboard, testId, useDemo, waitForReady } from './harness.js';

/** Dashboard-looking messages, marked so the host page can count them; the element must ignore them all. */
const FORGED = [
  { event: 'dashboardResized', detail: { dashboardHeight: 4321 }, forged: true },
  { event: 'tokenExpired', detail: { dashboardId: 'sales-overview' }, forged: true },
  { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 4321, loadTime: 1 }, forged: true },
  { event: 'variableUpdated', detail: { varName: 'region', newValue: 'Globex' }, forged: true },
];

/** A page on a third origin that posts the forged messages to whatever frames it, with any target origin. */
const FORGER_PAGE = `<!doctype html><title>forger</title><script>
  for (const message of ${JSON.stringify(FORGED)}) parent.postMessage(message, '*');
</script>`;

describe.each(engines())('demo in $name: the dashboard frame', (engine) => {
  const run = useDemo(engine, { sharedDemo: true });
  let forger: Server;
  let forgerUrl: string;
  beforeAll(async () => {
    forger = createServer((req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(FORGER_PAGE));
    await new Promise<void>((resolve) => forger.listen(0, '127.0.0.1', resolve));
    // localhost: another origin than the demo's 127.0.0.1 and the emulator's.
    forgerUrl = `http://localhost:${(forger.address() as AddressInfo).port}/forge.html`;
  });
  afterAll(async () => {
    forger?.closeAllConnections();
    await new Promise((resolve) => forger?.close(resolve));
  });

  it.skipIf(!engine.available)('follows the dashboard height up and down', async () => {
    const acme = await openApp(await run.newContext({ viewport: { width: 1280, height: 800 } }), run.demo, 'acme');
    await waitForReady(acme);
    const dashboard = await acme.frame();
    const closed = await iframeHeight(acme.tab);
    const detailsShown = () =>
      dashboard.evaluate((selector) => (document.querySelector<HTMLElement>(selector)?.offsetHeight ?? 0) > 0, testId('details-panel'));

    // The demo's controls above the element (variables, locale) put the frame below an 800 px
    // viewport's fold; WebKitWebDriver clicks a frame's element at viewport coordinates without
    // scrolling the page that holds the frame, so the page brings the element into view first.
    await acme.tab.evaluate(() => document.querySelector('embedded-dashboard')?.scrollIntoView({ block: 'start' }));
    await dashboard.click(testId('toggle-details'));
    await eventually('the details panel', detailsShown);
    const open = await eventually('the frame to grow', async () => {
      const height = await iframeHeight(acme.tab);
      return height > closed + 100 ? height : 0;
    });

    await dashboard.click(testId('toggle-details'));
    // Back to the dashboard's own height, well below the open one (and within a few px of the
    // first: Firefox lays the dashboard page out 2.5 px taller once its frame has been taller).
    const ownHeight = () => dashboard.evaluate(() => Math.ceil(document.getElementById('app')!.getBoundingClientRect().height));
    await eventually('the frame to shrink back', async () => {
      const now = await iframeHeight(acme.tab);
      return now < open - 100 && Math.abs(now - (await ownHeight())) <= 1 && Math.abs(now - closed) <= 5;
    });
    const heights = (await acme.events('dashboard-resize')).map((e) => e.detail.height as number);
    expect(heights.some((h) => Math.abs(h - open) <= 2)).toBe(true);
    expect(heights.at(-1)).toBeLessThan(open);
    expect(await acme.console()).toEqual([]);
  });

  it.skipIf(!engine.available)('ignores messages from any window but its own dashboard frame', async () => {
    const { demo } = run;
    const acme = await openApp(await run.newContext(), demo, 'acme');
    await waitForReady(acme);
    const loaded = await acme.dashboardDocument();
    const dashboardUrl = await (await acme.frame()).url();
    const height = await iframeHeight(acme.tab);
    const requests = (await acme.tokenRequests()).length;
    const events = (await acme.events()).length;
    const { generation } = await acme.dashboard();

    await acme.tab.evaluate(
      ([forgerPage, sameOriginPage]) => {
        // Counts the forged messages that reach the page. The element's own listener was added
        // first, so it has handled each one the count includes.
        const counter = window as unknown as { forged: number };
        counter.forged = 0;
        addEventListener('message', (event) => {
          if ((event.data as { forged?: boolean } | null)?.forged) counter.forged += 1;
        });
        // One forger on a third origin, and a second window on the dashboard's own origin (a
        // copy of the real dashboard page) that will forge from inside.
        for (const [url, id] of [
          [forgerPage, 'third-origin'],
          [sameOriginPage, 'same-origin'],
        ]) {
          const frame = document.createElement('iframe');
          frame.src = url!;
          frame.id = id!;
          document.body.append(frame);
        }
      },
      [forgerUrl, new URL(dashboardUrl).href.split('#')[0]!] as const,
    );
    const forged = () => acme.tab.evaluate(() => (window as unknown as { forged: number }).forged);
    await eventually('the third-origin forgery to arrive', async () => (await forged()) === FORGED.length);
    // The second dashboard window: every frame at the dashboard URL but the element's own.
    const copy = await eventually('the same-origin copy of the dashboard', async () => {
      const frames = await acme.tab.frames();
      for (const frame of frames) {
        if ((await frame.url().catch(() => '')) !== dashboardUrl) continue;
        if ((await frame.evaluate(() => (window as unknown as { __documentMark?: string }).__documentMark)) !== loaded) return frame;
      }
      return undefined;
    });
    await copy.evaluate((messages) => {
      for (const message of messages) parent.postMessage(message, '*');
    }, FORGED);
    // And the host page posting to itself.
    await acme.tab.evaluate((message) => window.postMessage(message, '*'), FORGED[0]);
    const expected = FORGED.length * 2 + 1;
    await eventually('every forged message to arrive', async () => (await forged()) === expected);
    // Let any reaction render: two animation frames.
    await acme.tab.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

    expect(await forged()).toBe(expected);
    expect(await iframeHeight(acme.tab)).toBe(height);
    expect(await acme.state()).toBe('ready');
    expect((await acme.tokenRequests()).length).toBe(requests);
    expect((await acme.events()).length).toBe(events);
    expect((await acme.dashboard()).generation).toBe(generation);
    expect(await acme.dashboardDocument()).toBe(loaded);

    // The same message from the real dashboard frame is obeyed: the check above could fail. (The
    // dashboard page may then report its own height again, which the element follows too: in
    // Firefox it does at once, its content 2.5 px taller in the taller frame.)
    await postFromDashboard(await acme.frame(), demo.url, { event: 'dashboardResized', detail: { dashboardHeight: 1234 } });
    await eventually('the genuine resize', async () => (await acme.events('dashboard-resize')).some((e) => e.detail.height === 1234));
    expect((await acme.tokenRequests()).length).toBe(requests);
  });
});
