import { existsSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join, relative } from 'node:path';
import { estimatePass } from './lib/estimate.js';
import { failureReasons } from './lib/exit-status.js';
import { gitCommit } from './lib/git.js';
import { parseHistory, runFooter } from './lib/history.js';
import { describeMachine } from './lib/machine.js';
import { benchDir, scratchDir } from './lib/paths.js';
import { formatDuration, setPass } from './lib/progress.js';
import type { Row } from './lib/row.js';
import { regenerateReport, writeRun } from './lib/results-file.js';
import { recordedSeries, type RunRecord } from './lib/run-record.js';
import { formatTable } from './lib/table.js';
import { runSize } from './size/index.js';
import { runThroughput } from './throughput/index.js';
import { runUpstream } from './upstream/index.js';
import { runBrowser } from './browser/index.js';
import { runEngines } from './browser/engines.js';
import { runOutage } from './outage/index.js';
import { runFleet } from './fleet/index.js';
import { runEdge } from './edge/index.js';
import { runChaos } from './chaos/index.js';
import { runEmbed } from './embed/index.js';
import { runSuperset } from './superset/index.js';

/*
 * `npm run bench` (full) or `npm run bench:quick` (short runs for CI: timings are printed but
 * not judged; only the size budget fails the run). `--write-results=<label>` also appends the run
 * to bench/HISTORY.md under that label (e.g. "Loaded run", "Quiet run") and makes bench/RESULTS.md
 * (each row's latest full run) and bench/plots/*.svg again from it; `--report` does only that.
 * `--only=size,throughput,upstream,browser,outage,fleet,edge,chaos,embed,superset` runs a subset (`rotation`: rows 5 alone; `engines`: rows 4m/4n in Firefox and WebKit alone).
 */
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const resultsArg = args.find((arg) => arg === '--write-results' || arg.startsWith('--write-results='));
const resultsLabel = resultsArg === undefined ? undefined : resultsArg.slice('--write-results='.length) || 'Last run';
const onlyArg = args.find((arg) => arg.startsWith('--only='));
const onlyNames = onlyArg
  ? onlyArg
      .slice('--only='.length)
      .split(',')
      .filter((name) => name !== '')
  : [];
const only = onlyArg ? new Set(onlyNames) : undefined;
const wanted = (name: string) => !only || only.has(name);
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);
const reportFiles = { dir: benchDir, spillDir: scratchDir };

if (args.includes('--report')) {
  // RESULTS.md and the plots made again from HISTORY.md, nothing run.
  try {
    for (const file of regenerateReport(reportFiles)) log(`wrote ${relative(benchDir, file)}`);
  } catch (error) {
    console.error(`bench: FAILED: ${(error as Error).message}`);
    process.exitCode = 1;
  }
  process.exit();
}

const machine = describeMachine();
const startedAtDate = new Date();
const loadStart = loadavg()[0] ?? Number.NaN;
const startedAt = performance.now();
const rows: Row[] = [];
/** Text printed under the table (the fleet projection). */
const notes: string[] = [];
/** Wall seconds of each bench, recorded with the run: the next run's estimates. */
const passes: Record<string, number> = {};
const history = (() => {
  try {
    return parseHistory(existsSync(join(benchDir, 'HISTORY.md')) ? readFileSync(join(benchDir, 'HISTORY.md'), 'utf8') : '');
  } catch (error) {
    // Estimates only: the run goes on; writing it (--write-results) fails with the same error.
    log(`no estimates: ${(error as Error).message}`);
    return [];
  }
})();

/** Runs one bench, timed, with its expected length said before it starts. */
async function pass<T>(name: string, title: string, run: () => Promise<T>, alone = true): Promise<T> {
  const estimate = estimatePass(name, quick, history);
  log(`${title}${estimate ? ` (${estimate})` : ''}`);
  // Progress lines name the pass; benches side by side (quick) name their own part instead.
  if (alone) setPass(name);
  const began = performance.now();
  try {
    return await run();
  } finally {
    passes[name] = Math.round((performance.now() - began) / 100) / 10;
    log(`${name}: ${formatDuration(passes[name])}`);
    if (alone) setPass('');
  }
}

let withinBudget: boolean | undefined = true;
/** Each bench that is wanted, in the order of its rows; `lane` groups the ones a quick run starts side by side. */
const benches: Array<{ name: string; title: string; lane: number; run: () => Promise<Row[]> }> = [];
const add = (name: string, title: string, lane: number, run: () => Promise<Row[]>) => benches.push({ name, title, lane, run });
if (wanted('size')) {
  add('size', '1. bundle sizes', 1, async () => {
    const size = await runSize();
    withinBudget = size.withinBudget;
    return size.rows;
  });
}
if (wanted('throughput')) add('throughput', '2. BFF throughput', 1, () => runThroughput(quick));
if (wanted('upstream')) add('upstream', '3. upstream efficiency', 1, () => runUpstream(quick));
if (wanted('browser')) {
  add('browser', '4–5. time to dashboard and rotation in Chromium (and the judged rows 4m/4n in Firefox and WebKit)', 0, () => runBrowser(quick));
} else if (wanted('engines')) {
  add('engines', '4m/4n. time to dashboard in Firefox and WebKit', 0, () => runEngines(quick));
}
if (!wanted('browser') && wanted('rotation')) {
  add('rotation', "5. rotation in Chromium (and row 4a's baseline page)", 0, () => runBrowser(quick, { timeToDashboard: false }));
}
if (wanted('outage')) add('outage', '6. vendor outage with and without the circuit breaker', 1, () => runOutage(quick));
if (wanted('fleet')) {
  add('fleet', "7. a fleet at the vendor's rate limit, with and without the vendor budget", 2, async () => {
    const fleet = await runFleet(quick);
    notes.push(...fleet.notes);
    return fleet.rows;
  });
}
if (wanted('edge')) add('edge', '8. the BFF as a Cloudflare Worker and an AWS Lambda function', 2, () => runEdge(quick));
if (wanted('chaos'))
  add('chaos', '9. the fleet under chaos: the cluster cold burst, and every fault of the chaos tests under a steady load', 2, () => runChaos(quick));
if (wanted('embed')) add('embed', '10. embed tokens: vendor calls and token route latency per kind of token', 1, () => runEmbed(quick));
if (wanted('superset')) add('superset', '12. Superset: vendor calls per view, guest tokens signed locally and minted by Superset', 1, () => runSuperset(quick));

const results = new Map<string, Row[]>();
if (quick) {
  // Quick (CI): timings are not judged, so the benches need not have the machine to themselves.
  // They run in three lanes side by side (Chromium; the single-process benches; the fleets),
  // each lane in row order: the wall time is the longest lane's, not the sum (about 82 s in CI).
  const lanes = [...new Set(benches.map((bench) => bench.lane))];
  await Promise.all(
    lanes.map(async (lane) => {
      for (const bench of benches.filter((candidate) => candidate.lane === lane))
        results.set(bench.name, await pass(bench.name, bench.title, bench.run, false));
    }),
  );
} else {
  for (const bench of benches) results.set(bench.name, await pass(bench.name, bench.title, bench.run));
}
for (const bench of benches) rows.push(...(results.get(bench.name) ?? []));
const seconds = (performance.now() - startedAt) / 1000;
const loadEnd = loadavg()[0] ?? Number.NaN;
const record: RunRecord = {
  label: resultsLabel ?? 'Last run',
  date: startedAtDate.toISOString(),
  commit: gitCommit(),
  mode: quick ? 'quick' : 'full',
  only: onlyNames,
  machine,
  loadStart,
  loadEnd,
  seconds: Math.round(seconds * 10) / 10,
  passes,
  rows,
  series: recordedSeries(),
};
const table = formatTable(rows);
const noteText = notes.length === 0 ? '' : `\n\n${notes.join('\n')}`;
console.log(`\n${table}\n\n${runFooter(record)}${noteText}`);
log(
  `passes: ${Object.entries(passes)
    .map(([name, s]) => `${name} ${formatDuration(s)}`)
    .join(', ')}`,
);
if (resultsLabel !== undefined) {
  try {
    for (const file of writeRun(record, notes, reportFiles)) log(`wrote ${relative(benchDir, file)}`);
  } catch (error) {
    console.error(`bench: FAILED to write the results: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}
const strict = process.env.CI === 'true' || process.env.CI === '1' || process.env.EMBED_REQUIRE_TOOLS === '1';
const reasons = failureReasons({ rows, withinBudget, strict });
for (const reason of reasons) console.error(`bench: FAILED: ${reason}`);
if (reasons.length > 0) process.exitCode = 1;
