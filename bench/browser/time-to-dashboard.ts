import type { Browser, BrowserContext, BrowserContextOptions } from 'playwright-core';
import { median } from '../lib/stats.js';

export interface TimeToDashboard {
  oursMs: number;
  baselineMs: number;
  runs: number;
}

/**
 * Navigation start → the dashboard reports itself loaded, in a fresh browser context each time
 * (cold HTTP cache), alternating ours and the baseline so drifting load hits both alike.
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
      await page.goto(url);
      const handle = await page.waitForFunction(() => (window as unknown as { __bench: { loadAt?: number } }).__bench.loadAt, null, { timeout: 30_000 });
      return (await handle.jsonValue()) as number;
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
