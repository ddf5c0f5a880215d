import { appendFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { engine, type EngineBrowser, type EngineName, type Tab, type Viewport } from '../../test/support/browsers/index.js';
import { startBurner } from '../lib/burner.js';
import { formatRatio } from '../lib/format.js';
import { NotAvailable, unavailableRows, type Row, type RowKind } from '../lib/row.js';
import { median, ratio } from '../lib/stats.js';
import { COOKIE, judgedPages, startBrowserServers, ttdSession } from './servers.js';
import { loadSteps, parseLoadedMessage, STEPS_METRIC, takeTurns, TTD_TARGET, ttdRow, type LoadMarks, type PageLoad } from './time-to-dashboard.js';
import { engineSettings, variantFeatures } from './engine-settings.js';

/** The engines besides Chromium whose time to dashboard rows 4m/4n are measured in too. */
export const OTHER_ENGINES = ['firefox', 'webkit'] as const satisfies readonly EngineName[];
export type OtherEngine = (typeof OTHER_ENGINES)[number];

/** The longest a page may take to say the dashboard is loaded, after its `load` event. */
const LOADED_WITHIN_MS = 30_000;

/**
 * Starts `name`'s browser through the end-to-end drivers' launch interface
 * (test/support/browsers: Firefox ESR over WebDriver BiDi, WebKitGTK's MiniBrowser through
 * WebKitWebDriver under Xvfb), with each engine's default options.
 */
export async function launchEngine(name: OtherEngine): Promise<EngineBrowser> {
  const chosen = engine(name);
  if (!chosen.available) throw new NotAvailable(`${name} not installed`);
  return chosen.launch();
}

/**
 * As `measureTimeToDashboard` for Chromium, through the drivers' interface any engine has:
 * every load in a fresh context (cold cache; in WebKit a fresh MiniBrowser session), the
 * session cookie set first for every page alike (WebKit's driver sets it from a page of the
 * pages' origin, so its connection to that server is open before each load, the baseline's
 * too). The time is the same as in Chromium, the host page's `performance.now()` when the
 * dashboard says it is loaded; it is read from the promise `window.__bench.line` in one script
 * call after the page's `load` event (drivers return from a navigation then), since WebKit's
 * classic WebDriver has no console events. That call lands on both pages alike, and nothing is
 * polled during the load.
 */
export async function measureInEngine<K extends string>(
  browser: EngineBrowser,
  pages: Record<K, string>,
  options: { viewport: Viewport; cookie: { url: string; name: string; value: string } },
  runs: number,
  warmUp = true,
): Promise<Record<K, PageLoad[]>> {
  const once = async (key: K): Promise<PageLoad> => {
    const url = pages[key];
    const context = await browser.newContext({ viewport: options.viewport });
    try {
      await context.setCookie(options.cookie.url, options.cookie.name, options.cookie.value);
      const tab = await context.newTab();
      await tab.goto(url);
      const { line, origin } = await tab.evaluate(
        (timeoutMs) =>
          Promise.race([
            (window as unknown as { __bench: { line: Promise<string> } }).__bench.line.then((said) => ({ line: said, origin: performance.timeOrigin })),
            new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the page said nothing within ${timeoutMs} ms of its load event`)), timeoutMs)),
          ]),
        LOADED_WITHIN_MS,
      );
      const load = parseLoadedMessage(String(line));
      if (!load) throw new Error(`${browser.engine}: ${new URL(url).pathname} said "${String(line).slice(0, 100)}" without a time`);
      return { ...load, marks: { ...load.marks, ...(await dataRequest(tab, origin)) } };
    } catch (error) {
      throw new Error(
        `${browser.engine}: ${new URL(url).pathname}${new URL(url).search.replace(/token=[^&]*/, 'token=…')}: ${(error as Error).message.split('\n')[0]}`,
        { cause: error },
      );
    } finally {
      await context.close();
    }
  };
  return takeTurns(Object.keys(pages) as K[], runs, once, warmUp, 'balanced');
}

/**
 * When the dashboard's data request went out and came back, on the host page's clock (its
 * `performance.timeOrigin` is `hostOrigin`): read in the frame after the measured span, so it
 * costs the load nothing. Empty where the frame or its entry cannot be read.
 */
async function dataRequest(tab: Tab, hostOrigin: number): Promise<Pick<LoadMarks, 'dataStart' | 'dataEnd'>> {
  try {
    const frame = await tab.frame((url) => url.includes('/iframe/'), 5_000);
    const inner = await frame.evaluate(() => {
      const entry = performance.getEntriesByType('resource').find((candidate) => new URL(candidate.name).pathname.includes('/iframe-data/')) as
        PerformanceResourceTiming | undefined;
      return { origin: performance.timeOrigin, start: entry?.startTime, end: entry?.responseEnd };
    });
    if (inner.start === undefined || inner.end === undefined) return {};
    const shift = inner.origin - hostOrigin;
    return { dataStart: inner.start + shift, dataEnd: inner.end + shift };
  } catch {
    return {};
  }
}

/**
 * The engines of this run: both, or those `BENCH_ENGINES` names (`BENCH_ENGINES=firefox`: a
 * shorter run for finding out where one engine's time goes; rows of the others are left out).
 */
function chosenEngines(): readonly OtherEngine[] {
  const asked = process.env.BENCH_ENGINES?.split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  if (!asked?.length) return OTHER_ENGINES;
  const unknown = asked.filter((name) => !(OTHER_ENGINES as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`BENCH_ENGINES names unknown engines: ${unknown.join(', ')} (known: ${OTHER_ENGINES.join(', ')})`);
  return OTHER_ENGINES.filter((name) => asked.includes(name));
}

const SAME_RUN: RowKind = 'ratio (same run)';
const ENGINE_LABEL: Record<OtherEngine, string> = { firefox: 'Firefox ESR (WebDriver BiDi)', webkit: 'WebKitGTK MiniBrowser (WebKitWebDriver, Xvfb)' };

/** The ids and metrics of one engine's rows: 4m and 4n's pages, where their time goes (as 4e), and the run's own noise (A/A). */
export function engineRowIds(name: OtherEngine) {
  const label = ENGINE_LABEL[name];
  return {
    quiet: [
      `4m-${name}`,
      `time to dashboard in ${label}: 4m's page (frame rendered by the server, shown, first token in its fragment, the element's script once the dashboard says it is loaded) vs its own baseline, no extra load`,
      SAME_RUN,
    ],
    control: [
      `4p-${name}`,
      `A/A control in ${label}: the baseline page loaded a second time in 4m's pass, against the baseline (the pass's own noise: how far from 1.00× a ratio moves with nothing different)`,
      SAME_RUN,
    ],
    loaded: [`4n-${name}`, `time to dashboard in ${label}: 4n's page vs its own baseline, under added CPU load`, SAME_RUN],
    steps: [`4e-${name}`, `where the time goes in ${label}, 4m's page and the baseline (medians, ms after navigation start)`, SAME_RUN],
  } as const;
}

/** The A/A figure for a row's note: the second baseline's median over the first's. */
const controlNote = (loads: { baseline: PageLoad[]; control: PageLoad[] }) =>
  `A/A ${formatRatio(ratio(median(loads.control.map((load) => load.ms)), median(loads.baseline.map((load) => load.ms))))}`;

/**
 * Rows 4m/4n (and their steps) in each other engine, each against its own server-rendered
 * baseline in the same pass, loads interleaved, with the baseline loaded a second time in each
 * pass as an A/A control (row 4p, and in 4m's and 4n's notes). Full runs: 40 loads of each page
 * without added load, then 40 under one busy-loop process (`engineSettings` (engine-settings.ts) for investigations).
 * Quick runs (CI) prove the path works within a few seconds an engine: one load of each page,
 * no warm-up, no A/A page, no loaded pass (its rows are left out, and `log` says so).
 */
export async function engineRows(
  judged: { baseline: string; fragment: string },
  options: { viewport: Viewport; cookie: { url: string; name: string; value: string } },
  quick: boolean,
  log: (message: string) => void = (message) => process.stderr.write(`bench: ${message}\n`),
): Promise<Row[]> {
  const rows: Row[] = [];
  const settings = engineSettings();
  const runs = quick ? 1 : settings.runs;
  // The A/A page: the very same page under another URL (the server ignores `copy`).
  const pages: Record<string, string> = quick ? { ...judged } : { ...judged, control: `${judged.baseline}&copy=2` };
  const variantUrl = (set: string) => `${judged.baseline.replace('/baseline?', '/variant?')}&with=${variantFeatures(set)}`;
  if (!quick) for (const set of settings.variants) pages[`variant ${set}`] = variantUrl(set);
  for (const name of chosenEngines()) {
    const ids = engineRowIds(name);
    const wanted = [ids.quiet, ...(quick ? [] : [ids.control]), ...(quick || !settings.loadedPass ? [] : [ids.loaded]), ids.steps];
    let browser: EngineBrowser | undefined;
    const started = performance.now();
    const seconds = (from: number) => `${((performance.now() - from) / 1000).toFixed(1)} s`;
    try {
      browser = await launchEngine(name).catch((error: unknown) => {
        if (error instanceof NotAvailable) throw error;
        // A launch is not measured: one more try, said aloud (a WebKit launch on this shared
        // machine once lost its Xvfb display: "cannot open display").
        log(`${name} did not start (${String((error as Error).message).split('\n')[0]}); trying once more`);
        return launchEngine(name);
      });
      const launchTime = seconds(started);
      const launched = performance.now();
      const quietLoad = loadavg()[0] ?? Number.NaN;
      const quiet = await measureInEngine(browser, pages, options, runs, !quick);
      dumpLoads(name, 'quiet', quiet);
      const endLoad = loadavg()[0] ?? Number.NaN;
      log(
        `${name}: launched in ${launchTime}, ${runs} load(s) of each of ${Object.keys(pages).length} pages${quick ? '' : ' and a warm-up'} in ${seconds(launched)}`,
      );
      const loads = `${runs} runs each, load average (1 min) at start ${quietLoad.toFixed(2)}, at end ${endLoad.toFixed(2)}`;
      const aa = quick ? '' : `; ${controlNote({ baseline: quiet.baseline!, control: quiet.control! })}`;
      const note = `${browser.version}; ${loads}${aa}`;
      const judgedLoads = { baseline: quiet.baseline!, fragment: quiet.fragment! };
      rows.push(ttdRow(ids.quiet, judgedLoads, 'fragment', note, TTD_TARGET.quiet, quick));
      if (!quick) rows.push(infoRow(ids.control, { baseline: quiet.baseline!, control: quiet.control! }, 'control', `${browser.version}; ${loads}`));
      for (const set of settings.variants) {
        if (quick) break;
        const metric = `${name}: the baseline page ${set.startsWith('-') ? `as 4m's without ${set.slice(1)}` : `with 4m's ${set}`} (/variant?with=${variantFeatures(set)}), in 4m's pass`;
        rows.push(
          infoRow(
            [`4v-${name} ${set}`, metric, SAME_RUN],
            { baseline: quiet.baseline!, [`variant ${set}`]: quiet[`variant ${set}`]! },
            `variant ${set}`,
            `${loads}; steps: ${loadSteps(quiet[`variant ${set}`]!)}`,
          ),
        );
      }
      rows.push(stepsRow(ids.steps, judgedLoads));
      if (quick) {
        log(`quick: rows ${ids.control[0]} (A/A) and ${ids.loaded[0]} (under added load) left out; npm run bench measures them`);
        continue;
      }
      if (!settings.loadedPass) {
        log(`BENCH_ENGINE_LOADED=0: row ${ids.loaded[0]} (under added load) left out`);
        continue;
      }
      const burner = startBurner();
      try {
        const loadedLoad = loadavg()[0] ?? Number.NaN;
        const loadedPages = { baseline: judged.baseline, fragment: judged.fragment, control: pages.control! };
        const loaded = await measureInEngine(browser, loadedPages, options, runs);
        dumpLoads(name, 'loaded', loaded);
        const loadedNote = `${browser.version}; ${runs} runs each, ${burner.description}, load average at start ${loadedLoad.toFixed(2)}; ${controlNote(loaded)}`;
        rows.push(ttdRow(ids.loaded, loaded, 'fragment', loadedNote, TTD_TARGET.loaded, quick));
      } finally {
        await burner.stop();
      }
    } catch (error) {
      const done = new Set(rows.map((row) => row.id));
      rows.push(
        ...unavailableRows(
          wanted.filter(([id]) => !done.has(id)),
          error,
        ),
      );
    } finally {
      await browser?.close().catch(() => undefined);
    }
  }
  return rows;
}

/**
 * `BENCH_ENGINE_DUMP=<file>`: every load's time and marks of a pass, one JSON line a pass
 * (`{ engine, pass, loads: { <page>: PageLoad[] } }`, pages in the order they took turns), for
 * analysing a pass beyond its medians (how far a median of fewer loads moves).
 */
function dumpLoads(engine: OtherEngine, pass: 'quiet' | 'loaded', loads: Record<string, PageLoad[]>): void {
  const file = process.env.BENCH_ENGINE_DUMP;
  if (file) appendFileSync(file, `${JSON.stringify({ engine, pass, loads })}\n`);
}

/** An unjudged same-run ratio: `variant`'s loads against the baseline's, min / median / max each. */
function infoRow(
  [id, metric, kind]: readonly [string, string, RowKind],
  loads: { baseline: PageLoad[] } & Record<string, PageLoad[]>,
  variant: string,
  note: string,
): Row {
  const row = ttdRow([id, metric, kind], loads, variant, note, Number.POSITIVE_INFINITY, false);
  return { ...row, target: '', result: 'info' };
}

function stepsRow([id, metric, kind]: readonly [string, string, RowKind], loads: { baseline: PageLoad[]; fragment: PageLoad[] }): Row {
  return {
    id,
    metric: `${metric}: ${STEPS_METRIC}`,
    kind,
    ours: loadSteps(loads.fragment),
    baseline: loadSteps(loads.baseline),
    ratio: '',
    target: '',
    result: 'info',
  };
}

/** `--only=engines`: the other engines' rows alone, on servers of their own. */
export async function runEngines(quick: boolean): Promise<Row[]> {
  let servers: Awaited<ReturnType<typeof startBrowserServers>> | undefined;
  try {
    servers = await startBrowserServers(quick);
    const { session, token } = await ttdSession(servers.pagesUrl);
    return await engineRows(judgedPages(servers.pagesUrl, token), engineOptions(servers.pagesUrl, session), quick);
  } catch (error) {
    return unavailableRows(
      OTHER_ENGINES.flatMap((name) => Object.values(engineRowIds(name))),
      error,
    );
  } finally {
    await servers?.stop();
  }
}

/** What every engine's loads use: the viewport of Chromium's rows 4, the session cookie for the pages' origin. */
export const engineOptions = (pagesUrl: string, session: string) => ({
  viewport: { width: 1024, height: 900 },
  cookie: { url: pagesUrl, name: COOKIE, value: session },
});
