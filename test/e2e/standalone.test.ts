/**
 * The shipped standalone script (packages/element/dist/standalone/embedded-dashboard.js, the one
 * file a plain HTML page loads) in Chromium against the demo's BFF and emulator: both frame
 * protocols are inside it. The element's other tests run its sources; this one runs the bundle
 * as built (minified twice, Lit cut by build/squeeze-lit.mjs).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Frame } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { RunningDemo } from '../../demo/server/start-demo.js';
import { chromiumTool } from '../support/tools.js';
import { eventually, openApp, useChromiumDemo, type AppTab } from './chromium-harness.js';

const tool = chromiumTool();
const SCRIPT = fileURLToPath(new URL('../../packages/element/dist/standalone/embedded-dashboard.js', import.meta.url));

/** A plain page of the integrator's site: the standalone script (added by openPlain), a field and one element. */
const plainBody = (attributes: string) =>
  `<label>Search <input id="outside"></label><embedded-dashboard dashboard="sales-overview" ${attributes}></embedded-dashboard>`;

const dashboardFrames = (tab: AppTab) => tab.page.frames().filter((f) => f.url().includes('/iframe/'));
const frameReady = (frame: Frame) => frame.evaluate(() => document.body.dataset.state === 'ready');

describe.skipIf(!tool.available)('the standalone script alone, in Chromium', () => {
  const chromium = useChromiumDemo(tool.path);
  let demo: RunningDemo;

  /** Signs in to the demo, then opens a plain page of the demo's origin (its BFF at /embed/token) with `attributes`. */
  async function openPlain(attributes: (demo: RunningDemo) => string): Promise<AppTab> {
    demo = await chromium.startDemo();
    const context = await chromium.newContext();
    const script = readFileSync(SCRIPT);
    await context.route(`${demo.url}/standalone/embedded-dashboard.js`, (route) => route.fulfill({ contentType: 'text/javascript', body: script }));
    const tab = await openApp(context, demo, 'acme');
    await tab.page.waitForURL(/\/app/);
    // The page must come from the demo's own server: Chromium's local network access checks block
    // a loopback frame in a document Playwright made up. Its sign-in page (which has no element),
    // then our markup and the script (a module script, as integrators load it).
    await tab.page.goto(`${demo.url}/`);
    await tab.page.evaluate(
      (html) => {
        document.body.innerHTML = html;
        const script = document.createElement('script');
        script.type = 'module';
        script.src = '/standalone/embedded-dashboard.js';
        document.head.append(script);
      },
      plainBody(attributes(demo)),
    );
    await eventually('the element to be ready', async () => (await tab.state()) === 'ready');
    return tab;
  }

  it('speaks protocol="explo" with no other import: token in the URL, rotated by a swap to a frame on the new token', async () => {
    const tab = await openPlain((d) => `protocol="explo" environment="production" src-template="${d.emulatorUrl}/iframe/{dashboard}/{token}/{environment}"`);
    const [frame] = dashboardFrames(tab);
    const token = new URL(frame!.url()).pathname.split('/')[3]!;
    expect(new URL(frame!.url()).pathname).toBe(`/iframe/sales-overview/${token}/production`);
    await eventually('data in the frame', () => frameReady(frame!));
    expect(await frame!.evaluate(() => document.querySelector('[data-testid="group-name"]')?.textContent)).toBe('Acme Corp');
    // The vendor stops honouring the token: the frame says customerJwtExpired, the element rotates
    // and swaps in a frame on the new token.
    expect(demo.emulator.expireToken(token)).toBe(true);
    const fresh = await eventually('one frame, on a new token, with data', async () => {
      const frames = dashboardFrames(tab);
      return frames.length === 1 && !frames[0]!.url().includes(token) && (await frameReady(frames[0]!)) ? frames[0] : undefined;
    });
    expect(new URL(fresh.url()).pathname).toMatch(/^\/iframe\/sales-overview\/[\w.~-]+\/production$/);
    await eventually('the element to be ready again', async () => (await tab.state()) === 'ready');
    expect((await tab.events('dashboard-token')).map((e) => e.detail.reason)).toEqual(['initial', 'rotate']);
    expect(await tab.events('dashboard-error')).toEqual([]);
  });

  it('moves focus as a keyboard user expects: from the dashboard to retry when it fails, then to the wrapper, never from the rest of the page', async () => {
    const tab = await openPlain((d) => `src-template="${d.emulatorUrl}/iframe/{dashboard}"`);
    const page = tab.page;
    /** What has focus: in the element's shadow root (tag#part), else on the page (#id or tag). */
    const focused = () =>
      page.evaluate(() => {
        const el = document.querySelector('embedded-dashboard')!;
        const inside = el.shadowRoot!.activeElement;
        if (inside) return `${inside.localName}${inside.getAttribute('part') ? `[${inside.getAttribute('part')}]` : ''}`;
        return document.activeElement?.id ? `#${document.activeElement.id}` : document.activeElement?.localName;
      });
    const [frame] = dashboardFrames(tab);
    await eventually('data in the frame', () => frameReady(frame!));
    // The viewer works inside the cross-origin dashboard: the parent sees the iframe as focused.
    await frame!.locator('body').click();
    expect(await focused()).toBe('iframe[frame]');
    // Token requests are refused from now on: the next one shows the error UI.
    await page.route('**/embed/token/rotate', (route) =>
      route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'forbidden', message: 'no', retryable: false } }) }),
    );
    await page.evaluate(() => document.querySelector('embedded-dashboard')!.retry());
    await eventually('the error UI', async () => (await tab.state()) === 'error');
    expect(await focused()).toBe('button');
    // Enter on the focused retry button: the button goes, focus stays in the element (wrapper).
    await page.keyboard.press('Enter');
    await eventually('the failed retry to show the error UI again', async () => (await tab.events('dashboard-error')).length === 2);
    await eventually('focus back on the new retry button', async () => (await focused()) === 'button');
    await page.unroute('**/embed/token/rotate');
    await page.keyboard.press('Enter');
    await eventually('ready again', async () => (await tab.state()) === 'ready');
    expect(await focused()).toBe('div[base]');
    // Its focus ring is drawn inside the element (the host clips what is outside).
    expect(
      await page.evaluate(() => getComputedStyle(document.querySelector('embedded-dashboard')!.shadowRoot!.querySelector('[part="base"]')!).outlineOffset),
    ).toBe('-3px');
    // Tab from there enters the dashboard again.
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('iframe[frame]');

    // Focus elsewhere on the page is never taken: the error UI appears, the field keeps focus.
    await page.locator('#outside').focus();
    await page.route('**/embed/token/rotate', (route) =>
      route.fulfill({ status: 403, contentType: 'application/json', body: JSON.stringify({ error: { code: 'forbidden', message: 'no', retryable: false } }) }),
    );
    await page.evaluate(() => document.querySelector('embedded-dashboard')!.retry());
    await eventually('the error UI', async () => (await tab.state()) === 'error');
    expect(await focused()).toBe('#outside');
  });
});
