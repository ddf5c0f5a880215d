import type { Browser, BrowserContext, BrowserContextOptions, ConsoleMessage } from 'playwright-core';
import { median } from '../lib/stats.js';
import { LOADED_MESSAGE } from './page-server.js';

export interface TimeToDashboard {
  oursMs: number;
  baselineMs: number;
  runs: number;
}

/**
 * Navigation start → the dashboard reports itself loaded, in a fresh browser context each time
 * (cold HTTP cache), alternating ours and the baseline so drifting load hits both alike.
 *
 * The time is the page's own `performance.now()`, read from the console message it logs. Polling
 * for it (`waitForFunction`) would evaluate playwright's injected script in the page's renderer
 * in the middle of the load: about 15-20 ms of main-thread work, shared with the dashboard's
 * iframe, landing on the measured span at a moment that differs between the two pages.
 */
export async function measureTimeToDashboard(
  browser: Browser,
  pages: { ours: string; baseline: string },
  context: BrowserContextOptions & { cookies: Parameters<BrowserContext['addCookies']>[0] },
  runs: number,
): Promise<TimeToDashboard> {
  const ours: number[] = [];
  const baseline: number[] = [];
  const once = async (url: string) => {
    const { cookies, ...options } = context;
    const browserContext = await browser.newContext(options);
    try {
      await browserContext.addCookies(cookies);
      const page = await browserContext.newPage();
      const loaded = page.waitForEvent('console', {
        predicate: (message: ConsoleMessage) => message.text().startsWith(LOADED_MESSAGE),
        timeout: 30_000,
      });
      await page.goto(url);
      const text = (await loaded).text();
      const at = Number(text.slice(LOADED_MESSAGE.length));
      if (!(at > 0)) throw new Error(`${url} logged "${text.slice(0, 100)}" without a time`);
      return at;
    } finally {
      await browserContext.close();
    }
  };
  // One unmeasured load of each warms Chromium's process pool and the servers' code paths.
  await once(pages.baseline);
  await once(pages.ours);
  for (let run = 0; run < runs; run++) {
    baseline.push(await once(pages.baseline));
    ours.push(await once(pages.ours));
  }
  return { oursMs: median(ours), baselineMs: median(baseline), runs };
}
