/**
 * `@embedded-dashboard/vite` from its tarball in a fresh app: `vite dev` alone (no other process)
 * signs in a sample customer and shows its dashboard in Chromium; HMR still works.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { chromium, collectPageErrors, dashboardGroupName, openChromium, waitForDashboardReady } from './browser.js';
import { copyIntoConsumer, startViteDev, type ServerProcess } from './consumer.js';

const consumerDir = inject('consumerDir');

describe.skipIf(!chromium.available)('vite dev with embeddedDashboard(), from the packed tarballs', () => {
  let app: string;
  let vite: ServerProcess | undefined;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    app = await copyIntoConsumer(consumerDir, 'test/packaging/fixtures/vite-app', 'apps/vite-app');
    ({ vite, base } = await startViteDev(consumerDir, app));
    browser = await openChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await vite?.stop();
  });

  it("signs in with the dev sign-in and shows that customer's dashboard, ready, with no console errors", async () => {
    const page = await browser.newPage();
    const errors = collectPageErrors(page);
    // Vite delivers an edit only to the HMR clients connected when it sees it: the edit waits for this page's.
    const hmrConnected = page.waitForEvent('console', { predicate: (message) => message.text() === '[vite] connected.', timeout: 60_000 }).then(
      () => true,
      () => false,
    );
    await page.goto(`${base}/__embedded-dashboard/login?customer=initech`);
    expect(new URL(page.url()).pathname).toBe('/');
    await waitForDashboardReady(page, errors, 'embedded-dashboard', 60_000);
    expect(await dashboardGroupName(page)).toBe('Initech');

    // HMR untouched: an edit is applied in place (no reload: the marker and the dashboard stay).
    await page.evaluate(() => ((window as unknown as { marker: number }).marker = 42));
    expect(await hmrConnected, "the page's vite HMR client connected").toBe(true);
    const title = join(app, 'title.js');
    await writeFile(title, (await readFile(title, 'utf8')).replace("'Sales'", "'Sales, edited'"));
    await page
      .waitForFunction(() => document.getElementById('title')?.textContent === 'Sales, edited', undefined, { timeout: 30_000 })
      .catch((error: Error) => {
        // Whether vite saw the edit ("hmr update /title.js") or not tells a lost watch event from a lost update.
        throw new Error(`${error.message}\nvite's output:\n${vite!.output.slice(-30).join('\n')}\npage errors: ${errors.join('; ') || 'none'}`);
      });
    expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
    expect(await page.locator('embedded-dashboard').getAttribute('state')).toBe('ready');
    expect(errors).toEqual([]);
    // The only process serving all of it is vite's own.
    expect(vite!.output.join('\n')).toMatch(/embedded-dashboard: BFF at http:\/\/127\.0\.0\.1:\d+\/embed, vendor emulator at http:\/\/127\.0\.0\.1:\d+/);
    await page.close();
  });
});
