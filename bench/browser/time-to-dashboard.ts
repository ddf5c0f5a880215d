import type { Browser, BrowserContext, BrowserContextOptions, ConsoleMessage } from 'playwright-core';
import { LOADED_MESSAGE } from './page-server.js';

/** Milliseconds since navigation start at which each step of one load happened (resource timing). */
export interface LoadMarks {
  /** The element's class was defined (`customElements.whenDefined`). */
  defined?: number;
  /** The element said the dashboard is loaded (`dashboard-load`), where that is not the page's time (the element loaded late). */
  ready?: number;
  /** The element's script arrived. */
  elementEnd?: number;
  /** The token request started and its answer arrived. */
  tokenStart?: number;
  tokenEnd?: number;
  /** The dashboard iframe's document was requested and arrived. */
  frameStart?: number;
  frameEnd?: number;
}

export interface PageLoad {
  /** Navigation start → the dashboard reported itself loaded. */
  ms: number;
  marks: LoadMarks;
}

/** Reads `bench:loaded <ms> <marks JSON>`, the console line both host pages log. */
export function parseLoadedMessage(text: string): PageLoad | undefined {
  if (!text.startsWith(`${LOADED_MESSAGE} `)) return undefined;
  const [ms, json] = text.slice(LOADED_MESSAGE.length + 1).split(' ', 2);
  const at = Number(ms);
  if (!(at > 0)) return undefined;
  let marks: LoadMarks = {};
  try {
    marks = JSON.parse(json ?? '{}') as LoadMarks;
  } catch {
    marks = {};
  }
  return { ms: at, marks };
}

/**
 * Navigation start → the dashboard reports itself loaded, in a fresh browser context each time
 * (cold HTTP cache), or for a page given as `{ url, warm: true }` in one context kept for all
 * its runs (a returning visitor: the element's script comes from the HTTP cache); the pages take
 * turns in every round so drifting load hits all alike.
 *
 * The time is the page's own `performance.now()`, read from the console message it logs. Polling
 * for it (`waitForFunction`) would evaluate playwright's injected script in the page's renderer
 * in the middle of the load: about 15-20 ms of main-thread work, shared with the dashboard's
 * iframe, landing on the measured span at a moment that differs between the pages.
 */
export async function measureTimeToDashboard<K extends string>(
  browser: Browser,
  pages: Record<K, string | { url: string; warm: true }>,
  context: BrowserContextOptions & { cookies: Parameters<BrowserContext['addCookies']>[0] },
  runs: number,
): Promise<Record<K, PageLoad[]>> {
  const { cookies, ...options } = context;
  const newContext = async () => {
    const created = await browser.newContext(options);
    await created.addCookies(cookies);
    return created;
  };
  // A warm page keeps one context (its HTTP cache and code cache) for all its runs: a returning visitor.
  const warmContexts = new Map<K, BrowserContext>();
  const once = async (key: K): Promise<PageLoad> => {
    const page = pages[key];
    const url = typeof page === 'string' ? page : page.url;
    const warm = typeof page !== 'string';
    let browserContext = warm ? warmContexts.get(key) : undefined;
    if (!browserContext) {
      browserContext = await newContext();
      if (warm) warmContexts.set(key, browserContext);
    }
    const tab = await browserContext.newPage();
    try {
      const loaded = tab.waitForEvent('console', {
        predicate: (message: ConsoleMessage) => message.text().startsWith(LOADED_MESSAGE),
        timeout: 30_000,
      });
      await tab.goto(url);
      const text = await loaded.then(
        (message) => message.text(),
        (error: Error) => {
          throw new Error(`${new URL(url).pathname}${new URL(url).search.replace(/token=[^&]*/, 'token=…')}: ${error.message.split('\n')[0]}`);
        },
      );
      const load = parseLoadedMessage(text);
      if (!load) throw new Error(`${url} logged "${text.slice(0, 100)}" without a time`);
      return load;
    } finally {
      if (warm) await tab.close();
      else await browserContext.close();
    }
  };
  const keys = Object.keys(pages) as K[];
  const results = Object.fromEntries(keys.map((key) => [key, [] as PageLoad[]])) as Record<K, PageLoad[]>;
  try {
    // One unmeasured load of each warms Chromium's process pool, the servers' code paths and the
    // warm pages' caches.
    for (const key of keys) await once(key);
    for (let run = 0; run < runs; run++) {
      // The order rotates every round, so no page always comes first (or right after another).
      for (let index = 0; index < keys.length; index++) {
        const key = keys[(index + run) % keys.length] as K;
        results[key].push(await once(key));
      }
    }
  } finally {
    for (const warmContext of warmContexts.values()) await warmContext.close();
  }
  return results;
}
