import type { Browser, BrowserContext, BrowserContextOptions, ConsoleMessage } from 'playwright-core';
import { formatRatio, formatSpread, msValue } from '../lib/format.js';
import { judgeTiming, type Row, type RowKind } from '../lib/row.js';
import { passProgress } from '../lib/progress.js';
import { recordSeries } from '../lib/run-record.js';
import { median, ratio } from '../lib/stats.js';
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
  /**
   * The dashboard's data request (`/iframe-data/…`) sent and answered, from the frame's own
   * resource timing moved onto the host page's clock (the difference of the two documents'
   * `performance.timeOrigin`): read after the load, in Firefox and WebKit only (engines.ts).
   */
  dataStart?: number;
  dataEnd?: number;
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
  let marks: LoadMarks;
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
  warmUp = true,
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
  try {
    return await takeTurns(Object.keys(pages) as K[], runs, once, warmUp);
  } finally {
    for (const warmContext of warmContexts.values()) await warmContext.close();
  }
}

/**
 * `runs` loads of each page (`once`), the pages taking turns in every round with the order
 * rotating, so no page always comes first (or right after another) and drifting load hits all
 * alike; after one unmeasured load of each (`warmUp`), which warms the browser's process pool,
 * the servers' code paths and the warm pages' caches. `order: 'balanced'` (Firefox and WebKit's
 * passes) reverses the list every other block of rounds, so no page mostly follows the same one.
 */
export async function takeTurns<K extends string>(
  keys: readonly K[],
  runs: number,
  once: (key: K) => Promise<PageLoad>,
  warmUp = true,
  order: 'rotate' | 'balanced' = 'rotate',
): Promise<Record<K, PageLoad[]>> {
  const results = Object.fromEntries(keys.map((key) => [key, [] as PageLoad[]])) as Record<K, PageLoad[]>;
  const progress = passProgress(`${keys.length} page(s) × ${runs} load(s)${warmUp ? ' after a warm-up' : ''}`, keys.length * (runs + (warmUp ? 1 : 0)));
  const load = async (key: K) => {
    const result = await once(key);
    progress.tick();
    return result;
  };
  if (warmUp) for (const key of keys) await load(key);
  const reversed = [...keys].reverse();
  for (let run = 0; run < runs; run++) {
    // `balanced`: every other block of rounds takes the pages in reverse order, so a page follows
    // the page after it as often as the one before it (with three pages: each other page equally
    // often). A Firefox load right after 4m's was a few per cent faster (bench/HISTORY.md, engines
    // run 6): with one direction only, the page after 4m's in the list gained that every time.
    const list = order === 'balanced' && Math.floor(run / keys.length) % 2 === 1 ? reversed : keys;
    for (let index = 0; index < keys.length; index++) {
      const key = list[(index + run) % keys.length] as K;
      results[key].push(await load(key));
    }
  }
  return results;
}

/** Time to dashboard ÷ the server-rendered baseline: on a machine without added load, and with it. */
export const TTD_TARGET = { quiet: 1.05, loaded: 1.1 };

/**
 * A time-to-dashboard row: the page `variant`'s loads against the baseline page's of the same
 * pass, min / median / max each, judged on the ratio of the medians (not in quick runs).
 */
export function ttdRow<V extends string>(
  [id, metric, kind]: readonly [string, string, RowKind],
  loads: { baseline: PageLoad[] } & Partial<Record<V, PageLoad[]>>,
  variant: V,
  note: string,
  target: number,
  quick: boolean,
  cache: 'cold' | 'warm' = 'cold',
): Row {
  const ours = (loads[variant] ?? []).map((load) => load.ms);
  const baseline = loads.baseline.map((load) => load.ms);
  const r = ratio(median(ours), median(baseline));
  // Every load, for the time-to-dashboard plot (bench/plots/time-to-dashboard.svg).
  recordSeries({ key: `ttd ${id} ours`, unit: 'ms', values: ours });
  recordSeries({ key: `ttd ${id} baseline`, unit: 'ms', values: baseline });
  return {
    id,
    metric: `${metric} (navigation start → dashboard loaded; ${note})`,
    kind,
    ours: formatSpread(ours, msValue, 'ms'),
    baseline: `token in iframe URL${cache === 'warm' ? ', warm cache too' : ''} ${formatSpread(baseline, msValue, 'ms')}`,
    ratio: `${formatRatio(r)} (medians)`,
    target: `≤ ${target.toFixed(2)}×`,
    result: judgeTiming(r <= target, quick),
  };
}

/** What a steps cell (`loadSteps`) lists. */
export const STEPS_METRIC =
  "element script arrived, element defined, token request sent → answered, frame document requested → arrived, (Firefox and WebKit: the dashboard's data request sent → answered, in the frame,) dashboard loaded (and, where the element's script comes after it, element ready)";

/** The steps of one page's loads, medians over the runs, in ms after navigation start (those the page had). */
export function loadSteps(loads: readonly PageLoad[]): string {
  const at = (mark: keyof LoadMarks) => median(loads.map((load) => load.marks[mark] ?? Number.NaN));
  const parts = [
    ['script', at('elementEnd')],
    ['defined', at('defined')],
    ['token', at('tokenStart')],
    ['→', at('tokenEnd')],
    ['frame', at('frameStart')],
    ['→', at('frameEnd')],
    ['data', at('dataStart')],
    ['→', at('dataEnd')],
    ['loaded', median(loads.map((load) => load.ms))],
    ['element ready', at('ready')],
  ] as const;
  return parts
    .filter(([, value]) => Number.isFinite(value))
    .map(([name, value]) => `${name} ${msValue(value)}`)
    .join(', ');
}
