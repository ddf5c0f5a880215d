import { mkdirSync, statSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningDemo } from '../../demo/server/start-demo.js';
import { chromiumTool } from '../support/tools.js';
import { eventually, latestToken, openApp, openBrowser, startTestDemo, waitForReady } from './harness.js';

const tool = chromiumTool();
const SCREENSHOT = fileURLToPath(new URL('../../docs/demo.png', import.meta.url));
const SCRATCH_SCREENSHOT = fileURLToPath(new URL('../../test-results/demo.png', import.meta.url));

describe.skipIf(!tool.available)('demo in Chromium: each customer sees only its own dashboard', () => {
  let browser: Browser;
  let demo: RunningDemo;

  beforeAll(async () => {
    browser = await openBrowser(tool.path);
    demo = await startTestDemo();
  });
  afterAll(async () => {
    await browser?.close();
    await demo?.close();
  });

  it('shows Acme its name and properties in the cross-origin dashboard', async () => {
    const context = await browser.newContext();
    const acme = await openApp(context, demo, 'acme');
    expect(new URL(acme.page.url()).pathname).toBe('/app');
    await waitForReady(acme);

    const frameUrl = new URL(acme.frame().url());
    expect(frameUrl.origin).not.toBe(new URL(demo.url).origin);
    const dashboard = acme.page.frameLocator('embedded-dashboard iframe');
    await expect.poll(() => dashboard.getByTestId('group-name').textContent()).toBe('Acme Corp');
    expect(await dashboard.locator('[data-var="region"] input').inputValue()).toBe('EMEA');
    expect(await dashboard.locator('[data-var="plan"] input').inputValue()).toBe('Enterprise');
    expect(await dashboard.locator('[data-var="seats"] input').inputValue()).toBe('250');
    expect(await acme.page.getByTestId('element-state').textContent()).toBe('ready');
    expect(await acme.page.getByTestId('customer-name').textContent()).toBe('Acme Corp');
    expect(acme.frameNavigations).toHaveLength(1);
    await context.close();
  });

  it("never shows Globex Acme's dashboard or token", async () => {
    const acmeContext = await browser.newContext();
    const acme = await openApp(acmeContext, demo, 'acme');
    await waitForReady(acme);
    const acmeToken = await latestToken(acme);
    expect(acmeToken.length).toBeGreaterThanOrEqual(16);

    const globexContext = await browser.newContext();
    const bodies: { url: string; body: string }[] = [];
    const reading: Promise<void>[] = [];
    globexContext.on('response', (response) => {
      reading.push(
        response.body().then(
          (body) => void bodies.push({ url: response.url(), body: body.toString('latin1') }),
          // Redirects have no body to read.
          () => undefined,
        ),
      );
    });
    const globex = await openApp(globexContext, demo, 'globex');
    await waitForReady(globex);
    const dashboard = globex.page.frameLocator('embedded-dashboard iframe');
    await expect.poll(() => dashboard.getByTestId('group-name').textContent()).toBe('Globex');
    expect(await dashboard.locator('[data-var="region"] input').inputValue()).toBe('Americas');
    // Both dashboards must be up at once for the check to mean anything.
    expect(await acme.page.frameLocator('embedded-dashboard iframe').getByTestId('group-name').textContent()).toBe('Acme Corp');

    await Promise.all(reading);
    const globexToken = await latestToken(globex);
    expect(globexToken).not.toBe(acmeToken);
    expect(bodies.some((b) => b.url.endsWith('/embed/token') && b.body.includes(globexToken))).toBe(true);
    expect(bodies.some((b) => b.url.includes('/iframe-data/'))).toBe(true);
    for (const { url, body } of bodies) {
      expect(body.includes(acmeToken), `${url} carries Acme's token`).toBe(false);
      expect(body.includes('Acme'), `${url} mentions Acme`).toBe(false);
    }
    for (const frame of globex.page.frames()) {
      const html = await frame.content();
      expect(html.includes(acmeToken)).toBe(false);
      expect(html.includes('Acme Corp')).toBe(false);
    }
    await acmeContext.close();
    await globexContext.close();
  });

  it('takes the README screenshot of /app with Acme signed in', async () => {
    const context = await browser.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1 });
    const acme = await openApp(context, demo, 'acme');
    await waitForReady(acme);
    await eventually('the vendor stats', async () => !(await acme.page.getByTestId('vendor-stats').textContent())?.includes('…'));
    // Refresh only when asked, or when there is none yet: every run would otherwise dirty git.
    const path = process.env.UPDATE_DEMO_SCREENSHOT === '1' || !existsSync(SCREENSHOT) ? SCREENSHOT : SCRATCH_SCREENSHOT;
    mkdirSync(fileURLToPath(new URL('.', `file://${path}`)), { recursive: true });
    await acme.page.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(20_000);
    await context.close();
  });
});
