import type { HistoryRun } from './history.js';
import { formatDuration } from './progress.js';

/**
 * How long a bench will take, said before it starts: the wall time the same bench took in the
 * latest recorded run of the same mode (HISTORY.md's records), else, for the browser passes, a
 * count of their loads at a typical time per load on this two-core machine. Undefined when
 * neither is known.
 */

/** Seconds per page load on the shared two-core machine (RESULTS.md's browser runs: Chromium ~1 s, Firefox ~2 s, WebKit's fresh session per load ~5 s). */
const SECONDS_PER_LOAD = { chromium: 1.2, firefox: 2.5, webkit: 5 };
/** A rotation run waits for the dashboard's next data refresh (15 s; quick 2 s) and the settle time. */
const ROTATION_RUN_SECONDS = { full: 12, quick: 4 };

/**
 * The loads of `--only=browser` (browser/index.ts and engines.ts): Chromium's 11 pages quiet and 7
 * loaded, 15 runs + a warm-up each (quick: 1, no warm-up), the judged pair 40 + 1 in each pass,
 * rotation 3 kinds × 5 runs (quick 1), layout shift 2 pages × 2 views × 5 (quick 1); in a full run
 * the judged pair and its A/A control in Firefox and WebKit (3 pages quiet, 2 loaded, 40 + 1).
 */
export function browserSecondsFromCounts(quick: boolean): number {
  const runs = quick ? 1 : 16;
  const judged = quick ? 1 : 41;
  const chromiumLoads = 11 * runs + 7 * runs + 2 * judged * 2 + 2 * 2 * (quick ? 1 : 5);
  const engineLoads = quick ? 0 : 3 * 41 + 2 * 41;
  const rotation = 3 * (quick ? 1 : 5) * ROTATION_RUN_SECONDS[quick ? 'quick' : 'full'];
  return chromiumLoads * SECONDS_PER_LOAD.chromium + engineLoads * (SECONDS_PER_LOAD.firefox + SECONDS_PER_LOAD.webkit) + rotation;
}

/** `about 31 min 20 s (the browser pass of the latest full run, H42 on 2026-12-02)`, or from counts. */
export function estimatePass(name: string, quick: boolean, history: readonly HistoryRun[]): string | undefined {
  const mode = quick ? 'quick' : 'full';
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!.record;
    const seconds = record?.passes[name];
    if (record && record.mode === mode && seconds !== undefined) {
      return `about ${formatDuration(seconds)}, as this bench took in the latest ${mode} run written, H${history[i]!.index} of ${record.date.slice(0, 10)}`;
    }
  }
  if (name === 'browser') {
    return `about ${formatDuration(browserSecondsFromCounts(quick))} from its count of page loads (no ${mode} run of it written yet)`;
  }
  return undefined;
}
