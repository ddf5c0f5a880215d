import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { launchChromium } from '../../test/support/chromium.js';
import { chromiumTool } from '../../test/support/tools.js';
import { startBurner } from '../lib/burner.js';
import { formatMs, formatRatio, formatSpread, msValue } from '../lib/format.js';
import { NotAvailable, judgeTiming, unavailableRows, type Row, type RowKind } from '../lib/row.js';
import { recordSeries } from '../lib/run-record.js';
import { signSession } from '../lib/session.js';
import { median, ratio } from '../lib/stats.js';
import { engineOptions, engineRowIds, engineRows, OTHER_ENGINES } from './engines.js';
import { layoutShiftRows, measureLayoutShift, SHIFT_FIRST, SHIFT_REPEAT } from './layout-shift.js';
import { measureRotation, type Rotation } from './rotation.js';
import { COOKIE, judgedPages, startBrowserServers, ttdSession } from './servers.js';
import { loadSteps, measureTimeToDashboard, STEPS_METRIC, TTD_TARGET, ttdRow, type PageLoad } from './time-to-dashboard.js';

const SAME_RUN: RowKind = 'ratio (same run)';
const ENGINE_ROW_IDS = OTHER_ENGINES.flatMap((name) => Object.values(engineRowIds(name)).map(([id]) => id)).join(', ');
const TTD_FETCH = ['4a', 'time to dashboard, element fetches its first token, no extra load', SAME_RUN] as const;
const TTD_FIRST = ['4b', 'time to dashboard, first token rendered into the page, no extra load', SAME_RUN] as const;
const TTD_FETCH_LOADED = ['4c', 'time to dashboard, element fetches its first token, under added CPU load', SAME_RUN] as const;
const TTD_FIRST_LOADED = ['4d', 'time to dashboard, first token rendered into the page, under added CPU load', SAME_RUN] as const;
const TTD_STEPS = ['4e', 'where the time goes (medians, ms after navigation start)', SAME_RUN] as const;
const TTD_URL_FETCH = [
  '4f',
  'time to dashboard, vendor-URL protocol ({token} in src-template), element fetches its first token, no extra load',
  SAME_RUN,
] as const;
const TTD_URL_FIRST = [
  '4g',
  'time to dashboard, vendor-URL protocol ({token} in src-template), first token rendered into the page, no extra load',
  SAME_RUN,
] as const;
const ROTATION_TIME = ['5a', 'rotation: tokenExpired → dashboard running on the new token', SAME_RUN] as const;
const ROTATION_BLANK = ['5b', 'rotation: animation frames without dashboard content', 'fixed target'] as const;
const SWAP_TIME = ['5c', 'rotation, vendor embed (protocol="explo", token in the iframe URL): customerJwtExpired → new frame shown', SAME_RUN] as const;
const SWAP_BLANK = [
  '5d',
  'rotation, vendor embed (protocol="explo"): host-page animation frames with no visible iframe showing dashboard content',
  'fixed target',
] as const;
const RENEWAL_TIME = [
  '5e',
  'renewal, embed tokens (protocol="explo-jwt", updateCustomerJwt to the running frame) vs the explo swap of 5c: customerJwtExpired → dashboard running on the new token',
  SAME_RUN,
] as const;
const RENEWAL_BLANK = [
  '5f',
  'renewal, embed tokens (protocol="explo-jwt"): animation frames without dashboard content, and dashboard documents loaded by the renewal',
  'fixed target',
] as const;
const ROTATION_ROWS = [ROTATION_TIME, ROTATION_BLANK, SWAP_TIME, SWAP_BLANK, RENEWAL_TIME, RENEWAL_BLANK] as const;
const TTD_WARM = ['4h', 'time to dashboard, returning visitor (warm HTTP cache), first token rendered into the page, no extra load', SAME_RUN] as const;
const TTD_WARM_LOADED = [
  '4i',
  'time to dashboard, returning visitor (warm HTTP cache), first token rendered into the page, under added CPU load',
  SAME_RUN,
] as const;
const TTD_ADOPT = [
  '4j',
  'time to dashboard, iframe rendered by the server and adopted by the element, first token rendered into the page, no extra load',
  SAME_RUN,
] as const;
const TTD_ADOPT_LOADED = [
  '4k',
  'time to dashboard, iframe rendered by the server and adopted by the element, first token rendered into the page, under added CPU load',
  SAME_RUN,
] as const;
const TTD_URL_ADOPT = [
  '4l',
  'time to dashboard, vendor-URL protocol ({token} in src-template), iframe rendered by the server with the first token in its URL and adopted, no extra load',
  SAME_RUN,
] as const;
const TTD_FRAGMENT = [
  '4m',
  "time to dashboard, iframe rendered by the server, shown, with the first token in its URL fragment (#token={token}); the element's script loaded once the dashboard says it is loaded, then adopting it, no extra load",
  SAME_RUN,
] as const;
const TTD_FRAGMENT_LOADED = [
  '4n',
  "time to dashboard, iframe rendered by the server, shown, with the first token in its URL fragment (#token={token}); the element's script loaded once the dashboard says it is loaded, then adopting it, under added CPU load",
  SAME_RUN,
] as const;
const TTD_EXPLO_ADOPT = [
  '4o',
  'time to dashboard, vendor embed (protocol="explo", token in the URL path), iframe rendered by the server, shown; the element\'s script loaded once the dashboard says it is loaded, then adopting it, no extra load',
  SAME_RUN,
] as const;
const TTD_ROWS = [
  TTD_FETCH,
  TTD_FIRST,
  TTD_FETCH_LOADED,
  TTD_FIRST_LOADED,
  TTD_STEPS,
  TTD_URL_FETCH,
  TTD_URL_FIRST,
  TTD_WARM,
  TTD_WARM_LOADED,
  TTD_ADOPT,
  TTD_ADOPT_LOADED,
  TTD_URL_ADOPT,
  TTD_FRAGMENT,
  TTD_FRAGMENT_LOADED,
  TTD_EXPLO_ADOPT,
] as const;

type Variant = 'baseline' | 'fetch' | 'first' | 'adopt' | 'fragment' | 'urlFetch' | 'urlFirst' | 'urlAdopt' | 'exploAdopt' | 'baselineWarm' | 'firstWarm';
/** The pages measured without added load only: they show what another URL shape costs. */
type QuietOnly = 'urlFetch' | 'urlFirst' | 'urlAdopt' | 'exploAdopt';

/**
 * Rows 4 and 5, in Debian's headless Chromium: the emulator (dashboard host) and the host pages
 * (with the BFF library mounted) each in a child process of their own. Without `timeToDashboard` (`--only=rotation`)
 * rows 4 are left out and only their baseline page is measured, as rows 5a and 5c's baseline.
 */
export async function runBrowser(quick: boolean, { timeToDashboard = true } = {}): Promise<Row[]> {
  const stoppers: Array<() => Promise<void>> = [];
  const rows: Row[] = [];
  try {
    const chromium = chromiumTool();
    if (!chromium.available) throw new NotAvailable('chromium not installed');
    const servers = await startBrowserServers(quick);
    stoppers.push(servers.stop);
    const { elementScript, pagesUrl } = servers;
    const emulator = { url: servers.emulatorUrl };
    const browser: Browser = await launchChromium(chromium.path);
    stoppers.push(() => browser.close());

    let baselineMs = Number.NaN;
    try {
      const { session, token } = await ttdSession(pagesUrl);
      const pages: Record<Exclude<Variant, 'fragment'>, string | { url: string; warm: true }> = {
        baseline: `${pagesUrl}/baseline?token=${encodeURIComponent(token)}`,
        fetch: `${pagesUrl}/ours`,
        first: `${pagesUrl}/ours?first=inline`,
        adopt: `${pagesUrl}/ours?first=inline&frame=server`,
        urlFetch: `${pagesUrl}/ours?src=url`,
        urlFirst: `${pagesUrl}/ours?src=url&first=inline`,
        urlAdopt: `${pagesUrl}/ours?src=url&first=inline&frame=server`,
        exploAdopt: `${pagesUrl}/ours?protocol=explo&frame=server`,
        baselineWarm: { url: `${pagesUrl}/baseline?token=${encodeURIComponent(token)}`, warm: true },
        firstWarm: { url: `${pagesUrl}/ours?first=inline`, warm: true },
      };
      // The vendor-URL pages are measured without added load only: they show what that protocol costs.
      const { urlFetch: _urlFetch, urlFirst: _urlFirst, urlAdopt: _urlAdopt, exploAdopt: _exploAdopt, ...mainPages } = pages;
      const { viewport } = engineOptions(pagesUrl, session);
      const context = { viewport, cookies: [{ name: COOKIE, value: session, url: pagesUrl }] };
      // Quick (CI): one load of each page per pass proves every page and pass still works.
      const runs = quick ? 1 : 15;
      if (!timeToDashboard) {
        // Rows 4 not asked for: only the baseline page, for rows 5a and 5c; the catch below leaves rows 4 out.
        const alone = await measureTimeToDashboard(browser, { baseline: pages.baseline }, context, runs);
        baselineMs = median(alone.baseline.map((load) => load.ms));
        recordSeries({ key: 'rotation baseline', unit: 'ms', values: alone.baseline.map((load) => load.ms) });
        throw new NotAvailable('rows 4 left out (--only=rotation)');
      }

      // The judged pair (4m, 4n) again in a pass of its own with more runs: on this machine a
      // median of 15 loads moves by about ±0.1x from run to run.
      const judged = judgedPages(pagesUrl, token);
      const judgedRuns = quick ? 1 : 40;
      const quietLoad = loadavg()[0] ?? Number.NaN;
      const quiet = await measureTimeToDashboard(browser, pages, context, runs, !quick);
      baselineMs = median(quiet.baseline.map((load) => load.ms));
      recordSeries({ key: 'rotation baseline', unit: 'ms', values: quiet.baseline.map((load) => load.ms) });
      const judgedQuietLoad = loadavg()[0] ?? Number.NaN;
      const judgedQuiet = await measureTimeToDashboard(browser, judged, context, judgedRuns, !quick);
      const burner = startBurner();
      let loaded: Record<Exclude<Variant, QuietOnly | 'fragment'>, PageLoad[]>;
      let judgedLoaded: Record<'baseline' | 'fragment', PageLoad[]>;
      let loadedLoad: number;
      let judgedLoadedLoad: number;
      try {
        loadedLoad = loadavg()[0] ?? Number.NaN;
        // Quick (CI): the main pages under load are the quiet pass's pages and code again with the
        // burner beside; only the judged pair's loaded pass (4n) runs, the rest is left out (said below).
        loaded = quick ? emptyLoads(mainPages) : await measureTimeToDashboard(browser, mainPages, context, runs, !quick);
        judgedLoadedLoad = loadavg()[0] ?? Number.NaN;
        judgedLoaded = await measureTimeToDashboard(browser, judged, context, judgedRuns, !quick);
      } finally {
        await burner.stop();
      }
      const quietNote = `${runs} runs each, load average (1 min) at start ${quietLoad.toFixed(2)}`;
      const loadedNote = `${runs} runs each, ${burner.description}, load average at start ${loadedLoad.toFixed(2)}`;
      const judgedQuietNote = `a pass of its own, ${judgedRuns} runs each, load average (1 min) at start ${judgedQuietLoad.toFixed(2)}`;
      const judgedLoadedNote = `a pass of its own, ${judgedRuns} runs each, ${burner.description}, load average at start ${judgedLoadedLoad.toFixed(2)}`;
      const loadedRows = (...made: Row[]) => (quick ? [] : made);
      if (quick)
        process.stderr.write(
          `bench: quick: rows ${[TTD_FETCH_LOADED, TTD_FIRST_LOADED, TTD_WARM_LOADED, TTD_ADOPT_LOADED].map(([id]) => id).join(', ')} left out (the quiet pass's pages under the burner; npm run bench measures them)\n`,
        );
      rows.push(
        ttdRow(TTD_FETCH, quiet, 'fetch', quietNote, TTD_TARGET.quiet, quick),
        ttdRow(TTD_FIRST, quiet, 'first', quietNote, TTD_TARGET.quiet, quick),
        ...loadedRows(
          ttdRow(TTD_FETCH_LOADED, loaded, 'fetch', loadedNote, TTD_TARGET.loaded, quick),
          ttdRow(TTD_FIRST_LOADED, loaded, 'first', loadedNote, TTD_TARGET.loaded, quick),
        ),
        stepsRow({ ...quiet, fragment: judgedQuiet.fragment }),
        ttdRow(TTD_URL_FETCH, quiet, 'urlFetch', quietNote, TTD_TARGET.quiet, quick),
        ttdRow(TTD_URL_FIRST, quiet, 'urlFirst', quietNote, TTD_TARGET.quiet, quick),
        ttdRow(TTD_WARM, { baseline: quiet.baselineWarm, firstWarm: quiet.firstWarm }, 'firstWarm', quietNote, TTD_TARGET.quiet, quick, 'warm'),
        ...loadedRows(
          ttdRow(TTD_WARM_LOADED, { baseline: loaded.baselineWarm, firstWarm: loaded.firstWarm }, 'firstWarm', loadedNote, TTD_TARGET.loaded, quick, 'warm'),
        ),
        ttdRow(TTD_ADOPT, quiet, 'adopt', quietNote, TTD_TARGET.quiet, quick),
        ...loadedRows(ttdRow(TTD_ADOPT_LOADED, loaded, 'adopt', loadedNote, TTD_TARGET.loaded, quick)),
        ttdRow(TTD_URL_ADOPT, quiet, 'urlAdopt', quietNote, TTD_TARGET.quiet, quick),
        ttdRow(TTD_FRAGMENT, judgedQuiet, 'fragment', judgedQuietNote, TTD_TARGET.quiet, quick),
        ttdRow(TTD_FRAGMENT_LOADED, judgedLoaded, 'fragment', judgedLoadedNote, TTD_TARGET.loaded, quick),
        ttdRow(TTD_EXPLO_ADOPT, quiet, 'exploAdopt', quietNote, TTD_TARGET.quiet, quick),
      );
      // The judged pair in Firefox and WebKit, each against its own baseline (rows 4m/4n-<engine>).
      // Not in quick runs (CI): launching the two browsers alone takes 16-30 s on this shared
      // machine, more than the 10 s CI can spare; `--quick --only=engines` runs one load of each.
      if (quick) process.stderr.write(`bench: quick: rows ${ENGINE_ROW_IDS} left out (npm run bench, or --only=engines, measures them)\n`);
      else rows.push(...(await engineRows(judged, engineOptions(pagesUrl, session), quick)));
    } catch (error) {
      if (timeToDashboard) rows.push(...unavailableRows(TTD_ROWS, error));
    }

    const setup = { browser, pageUrl: pagesUrl, emulatorUrl: emulator.url, session: signSession, cookieName: COOKIE };
    const rotationRuns = quick ? 1 : 5;
    // The shipped standalone script carries every frame protocol (packages/element/src/bundle-size.test.ts).
    const hasExplo = readFileSync(elementScript, 'utf8').includes('customerJwtExpired');
    const rotate = (protocol: 'message' | 'explo' | 'explo-jwt') =>
      protocol === 'explo' && !hasExplo
        ? Promise.reject(new Error('the standalone script has no explo adapter'))
        : measureRotation(setup, rotationRuns, protocol);
    // Quick (CI): the three kinds side by side (each its own customer and page; their timings are
    // not judged), so their waits for the dashboard's next refresh overlap. A full run keeps them apart.
    const settle = <T>(promise: Promise<T>) =>
      promise.then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
    const kinds = ['message', 'explo', 'explo-jwt'] as const;
    const measured = quick
      ? await Promise.all(kinds.map((kind) => settle(rotate(kind))))
      : await kinds.reduce<Promise<Array<{ value: Rotation } | { error: unknown }>>>(
          async (done, kind) => [...(await done), await settle(rotate(kind))],
          Promise.resolve([]),
        );
    const [message, swap, renewal] = measured as [
      { value: Rotation } | { error: unknown },
      { value: Rotation } | { error: unknown },
      { value: Rotation } | { error: unknown },
    ];
    if ('value' in message) rows.push(...rotationRows(message.value, [ROTATION_TIME, ROTATION_BLANK], baselineMs, quick, 'tokenExpired'));
    else rows.push(...unavailableRows([ROTATION_TIME, ROTATION_BLANK], message.error));
    let swapMs = Number.NaN;
    if ('value' in swap) {
      swapMs = median(swap.value.rotationMs);
      rows.push(...rotationRows(swap.value, [SWAP_TIME, SWAP_BLANK], baselineMs, quick, 'customerJwtExpired'));
    } else rows.push(...unavailableRows([SWAP_TIME, SWAP_BLANK], swap.error));
    if ('value' in renewal) rows.push(...renewalRows(renewal.value, swapMs, quick));
    else rows.push(...unavailableRows([RENEWAL_TIME, RENEWAL_BLANK], renewal.error));
    if (timeToDashboard) {
      try {
        const { session, token } = await ttdSession(pagesUrl);
        const { viewport } = engineOptions(pagesUrl, session);
        const context = { viewport, cookies: [{ name: COOKIE, value: session, url: pagesUrl }] };
        rows.push(...layoutShiftRows(await measureLayoutShift(browser, pagesUrl, token, context, quick ? 1 : 5)));
      } catch (error) {
        rows.push(...unavailableRows([SHIFT_FIRST, SHIFT_REPEAT], error));
      }
    }
    return rows;
  } catch (error) {
    return unavailableRows([...(timeToDashboard ? [...TTD_ROWS, SHIFT_FIRST, SHIFT_REPEAT] : []), ...ROTATION_ROWS], error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}

/** No loads of any of `pages` (a pass a quick run leaves out). */
function emptyLoads<K extends string>(pages: Record<K, unknown>): Record<K, PageLoad[]> {
  return Object.fromEntries(Object.keys(pages).map((key) => [key, [] as PageLoad[]])) as Record<K, PageLoad[]>;
}

/** The steps of each page's load, medians over the runs without added load. */
function stepsRow(loads: Record<Variant, PageLoad[]>): Row {
  const steps = (variant: Variant) => loadSteps(loads[variant]);
  return {
    id: TTD_STEPS[0],
    metric: `${TTD_STEPS[1]}: ${STEPS_METRIC}`,
    kind: TTD_STEPS[2],
    ours: `fetch: ${steps('fetch')}; first token: ${steps('first')}; server-rendered frame adopted: ${steps('adopt')}; shown with the first token in its fragment, element after the dashboard: ${steps('fragment')}`,
    baseline: steps('baseline'),
    ratio: '',
    target: '',
    result: 'info',
  };
}

/**
 * Rows 5a and 5b (the token posted to the running frame) or 5c and 5d (the vendor embed: a
 * hidden new frame swapped in): rotation time against the baseline page load of row 4a, and
 * blank frames against 0.
 */
function rotationRows(
  rotation: Rotation,
  [time, blank]: readonly [readonly [string, string, RowKind], readonly [string, string, RowKind]],
  baselineMs: number,
  quick: boolean,
  expiryEvent: string,
): Row[] {
  const rotationMs = median(rotation.rotationMs);
  const swap = expiryEvent === 'customerJwtExpired';
  recordSeries({ key: `rotation ${time[0]}`, unit: 'ms', values: rotation.rotationMs });
  const worst = Math.max(...rotation.blankFrames);
  return [
    {
      id: time[0],
      metric: `${time[1]}, ${rotation.runs} runs`,
      kind: time[2],
      ours: formatSpread(rotation.rotationMs, msValue, 'ms'),
      baseline: `row 4a's baseline page load (token in iframe URL) ${formatMs(baselineMs)}`,
      ratio: formatRatio(ratio(rotationMs, baselineMs)),
      target: '< 1.00×',
      result: judgeTiming(rotationMs < baselineMs, quick),
    },
    {
      id: blank[0],
      metric: swap
        ? `${blank[1]} (every host-page animation frame from ${expiryEvent} to ${rotation.settleMs} ms after the new frame is shown, each iframe's content from its own document; ${rotation.runs} runs)`
        : `${blank[1]} (every animation frame from ${expiryEvent} to ${rotation.settleMs} ms after the new data, host page and iframe; ${rotation.runs} runs)`,
      kind: blank[2],
      ours: `${worst} blank (worst run) of ${formatSpread(rotation.sampledFrames, String, 'frames sampled per run')}`,
      baseline: 'none (fixed target)',
      ratio: '',
      target: '0',
      result: worst === 0 ? 'pass' : 'miss',
    },
  ];
}

/**
 * Rows 5e and 5f: the embed token renewed in the running frame (`updateCustomerJwt`), beside the
 * explo swap of 5c (a second dashboard load in a hidden frame). A run fails if the dashboard's
 * document was replaced (`measureRotation`), so every counted renewal loaded no dashboard again.
 */
function renewalRows(renewal: Rotation, swapMs: number, quick: boolean): Row[] {
  const renewalMs = median(renewal.rotationMs);
  const worst = Math.max(...renewal.blankFrames);
  recordSeries({ key: `rotation ${RENEWAL_TIME[0]}`, unit: 'ms', values: renewal.rotationMs });
  return [
    {
      id: RENEWAL_TIME[0],
      metric: `${RENEWAL_TIME[1]}, ${renewal.runs} runs`,
      kind: RENEWAL_TIME[2],
      ours: formatSpread(renewal.rotationMs, msValue, 'ms'),
      baseline: `row 5c's explo swap (a second dashboard load, hidden) ${formatMs(swapMs)}`,
      ratio: formatRatio(ratio(renewalMs, swapMs)),
      target: '< 1.00×',
      result: judgeTiming(renewalMs < swapMs, quick),
    },
    {
      id: RENEWAL_BLANK[0],
      metric: `${RENEWAL_BLANK[1]} (every animation frame from customerJwtExpired to ${renewal.settleMs} ms after the new data, host page and iframe; ${renewal.runs} runs)`,
      kind: RENEWAL_BLANK[2],
      ours: `${worst} blank (worst run) of ${formatSpread(renewal.sampledFrames, String, 'frames sampled per run')}; 0 dashboard documents loaded per renewal (same document throughout)`,
      baseline: 'none (fixed target); the explo swap of 5c loads 1 per renewal',
      ratio: '',
      target: '0 blank, 0 loaded',
      result: worst === 0 ? 'pass' : 'miss',
    },
  ];
}
