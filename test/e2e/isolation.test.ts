import { mkdirSync, statSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { chromiumTool } from '../support/tools.js';
import { eventually, latestToken, openApp, useChromiumDemo, waitForGeneration, waitForReady } from './chromium-harness.js';

const tool = chromiumTool();
const SCREENSHOT = fileURLToPath(new URL('../../docs/demo.png', import.meta.url));
const SCRATCH_SCREENSHOT = fileURLToPath(new URL('../../test-results/demo.png', import.meta.url));

describe.skipIf(!tool.available)('demo in Chromium: each customer sees only its own dashboard', () => {
  const chromium = useChromiumDemo(tool.path, { sharedDemo: true });

  it('shows Acme its name and properties in the cross-origin dashboard', async () => {
    const { demo } = chromium;
    const context = await chromium.newContext();
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
  });

  it("never shows Globex Acme's dashboard or token, not even across a rotation of Acme's", async () => {
    const { demo } = chromium;
    const acmeContext = await chromium.newContext();
    const acme = await openApp(acmeContext, demo, 'acme');
    await waitForReady(acme);
    const acmeTokens = [await latestToken(acme)];
    expect(acmeTokens[0]?.length).toBeGreaterThanOrEqual(16);

    // Everything Globex's browser context receives (every page and frame, the cross-origin
    // dashboard included), and everything it sends.
    const globexContext = await chromium.newContext();
    const seen: { what: string; text: string }[] = [];
    const unread: string[] = [];
    const reading: Promise<void>[] = [];
    globexContext.on('request', (request) => {
      seen.push({ what: `request ${request.url()}`, text: `${request.url()}\n${request.postData() ?? ''}` });
    });
    globexContext.on('response', (response) => {
      reading.push(
        (async () => {
          const headers = JSON.stringify(await response.allHeaders());
          const body = await response.body().then(
            (buffer) => buffer.toString('latin1'),
            () => {
              // Only a redirect has no body to read.
              if (response.status() < 300 || response.status() >= 400) unread.push(response.url());
              return '';
            },
          );
          seen.push({ what: `response ${response.url()}`, text: `${headers}\n${body}` });
        })(),
      );
    });
    const globex = await openApp(globexContext, demo, 'globex');
    await waitForReady(globex);
    const dashboard = globex.page.frameLocator('embedded-dashboard iframe');
    await expect.poll(() => dashboard.getByTestId('group-name').textContent()).toBe('Globex');
    expect(await dashboard.locator('[data-var="region"] input').inputValue()).toBe('Americas');
    // Both dashboards must be up at once for the check to mean anything.
    expect(await acme.page.frameLocator('embedded-dashboard iframe').getByTestId('group-name').textContent()).toBe('Acme Corp');

    // Acme's token rotates while Globex's dashboard keeps re-reading its data.
    await acme.page.getByTestId('expire-token').click();
    await waitForGeneration(acme, 2);
    acmeTokens.push(await latestToken(acme));
    const dataReads = () => seen.filter((s) => s.what.startsWith('response') && s.what.includes('/iframe-data/')).length;
    const readsAfterRotation = dataReads();
    await eventually("Globex's dashboard to re-read its data twice", () => dataReads() >= readsAfterRotation + 2);

    await Promise.all(reading);
    expect(unread).toEqual([]);
    const globexToken = await latestToken(globex);
    expect(acmeTokens).not.toContain(globexToken);
    expect(seen.some((s) => s.what === `response ${demo.url}/embed/token` && s.text.includes(globexToken))).toBe(true);
    const pages: { what: string; text: string }[] = [];
    for (const page of globexContext.pages()) {
      for (const frame of page.frames()) pages.push({ what: `page ${frame.url()}`, text: await frame.content() });
      const storage = await page.evaluate(() => JSON.stringify([{ ...localStorage }, { ...sessionStorage }, window.__dashboardEvents]));
      pages.push({ what: `storage and events of ${page.url()}`, text: storage });
    }
    expect(pages.some((p) => p.what.includes('/iframe/'))).toBe(true);
    for (const { what, text } of [...seen, ...pages]) {
      for (const token of acmeTokens) expect(text.includes(token), `${what} carries an Acme token`).toBe(false);
      expect(text.includes('Acme'), `${what} mentions Acme`).toBe(false);
    }
  });

  it('takes the README screenshot of /app with Acme signed in', async () => {
    // A demo of its own, so the counters show a first visit, not the rotations of the tests above.
    const fresh = await chromium.startDemo();
    const context = await chromium.newContext({ viewport: { width: 1440, height: 960 }, deviceScaleFactor: 1 });
    const acme = await openApp(context, fresh, 'acme');
    await waitForReady(acme);
    await eventually('the vendor stats', async () => !(await acme.page.getByTestId('vendor-stats').textContent())?.includes('…'));
    // Refresh only when asked, or when there is none yet: every run would otherwise dirty git.
    const path = process.env.UPDATE_DEMO_SCREENSHOT === '1' || !existsSync(SCREENSHOT) ? SCREENSHOT : SCRATCH_SCREENSHOT;
    mkdirSync(fileURLToPath(new URL('.', `file://${path}`)), { recursive: true });
    await acme.page.screenshot({ path });
    expect(statSync(path).size).toBeGreaterThan(20_000);
  });
});
