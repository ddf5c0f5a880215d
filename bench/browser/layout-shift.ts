import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { formatSpread } from '../lib/format.js';
import type { Row, RowKind } from '../lib/row.js';
import { median } from '../lib/stats.js';

const FIXED: RowKind = 'fixed target';
export const SHIFT_FIRST = [
  '11a',
  'layout shift of the content below the embed (cumulative, Chromium layout-shift entries), first view in a tab',
  FIXED,
] as const;
export const SHIFT_REPEAT = [
  '11b',
  'layout shift of the content below the embed (cumulative), repeat view in the same tab (the height remembered for the page session)',
  FIXED,
] as const;
/** At most this much shift on a repeat view: none a reader would see (Chromium rounds tiny shifts to 0). */
export const REPEAT_SHIFT_TARGET = 0.001;
/** How long after the dashboard says it is loaded the shifts are still counted: its height arrives right after. */
const SETTLE_MS = 500;

export interface LayoutShifts {
  first: number[];
  repeat: number[];
  fixedFirst: number[];
  fixedRepeat: number[];
}

/** Loads `url` in `page` and returns the layout shift summed once the dashboard is loaded and settled. */
async function shiftOf(page: Page, url: string): Promise<number> {
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __bench?: { loadAt?: number } }).__bench?.loadAt !== undefined, undefined, { timeout: 30_000 });
  await page.waitForTimeout(SETTLE_MS);
  return page.evaluate(() => (window as unknown as { __shift: number }).__shift);
}

/**
 * Rows 11a and 11b: the page with the element (`/shift`) and the same page with a fixed-height
 * iframe (`/shift?fixed=<token>`), each loaded twice in one tab of a fresh context (a first view,
 * then a repeat view in the same page session), taking turns in each run.
 */
export async function measureLayoutShift(
  browser: Browser,
  pagesUrl: string,
  token: string,
  context: BrowserContextOptions & { cookies: { name: string; value: string; url: string }[] },
  runs: number,
): Promise<LayoutShifts> {
  const { cookies, ...options } = context;
  const shifts: LayoutShifts = { first: [], repeat: [], fixedFirst: [], fixedRepeat: [] };
  const twice = async (url: string): Promise<[number, number]> => {
    const created = await browser.newContext(options);
    try {
      await created.addCookies(cookies);
      const page = await created.newPage();
      return [await shiftOf(page, url), await shiftOf(page, url)];
    } finally {
      await created.close();
    }
  };
  for (let run = 0; run < runs; run++) {
    const [first, repeat] = await twice(`${pagesUrl}/shift`);
    const [fixedFirst, fixedRepeat] = await twice(`${pagesUrl}/shift?fixed=${encodeURIComponent(token)}`);
    shifts.first.push(first);
    shifts.repeat.push(repeat);
    shifts.fixedFirst.push(fixedFirst);
    shifts.fixedRepeat.push(fixedRepeat);
  }
  return shifts;
}

const cls = (value: number) => value.toFixed(4);

/** Rows 11a (info: the first view cannot know the height unless the dashboard says it early) and 11b (judged). */
export function layoutShiftRows(shifts: LayoutShifts): Row[] {
  const runs = shifts.first.length;
  const baseline = (values: number[]) => `fixed-height iframe, same page, same run: ${formatSpread(values, cls, 'CLS')}`;
  const repeat = median(shifts.repeat);
  return [
    {
      id: SHIFT_FIRST[0],
      metric: `${SHIFT_FIRST[1]}, ${runs} runs`,
      kind: SHIFT_FIRST[2],
      ours: formatSpread(shifts.first, cls, 'CLS'),
      baseline: baseline(shifts.fixedFirst),
      ratio: '',
      target: '',
      result: 'info',
    },
    {
      id: SHIFT_REPEAT[0],
      metric: `${SHIFT_REPEAT[1]}, ${runs} runs`,
      kind: SHIFT_REPEAT[2],
      ours: formatSpread(shifts.repeat, cls, 'CLS'),
      baseline: baseline(shifts.fixedRepeat),
      ratio: '',
      target: `≤ ${REPEAT_SHIFT_TARGET} (median)`,
      result: repeat <= REPEAT_SHIFT_TARGET ? 'pass' : 'miss',
    },
  ];
}
