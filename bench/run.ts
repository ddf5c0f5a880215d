import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { failureReasons } from './lib/exit-status.js';
import { describeMachine } from './lib/machine.js';
import { benchDir } from './lib/paths.js';
import type { Row } from './lib/row.js';
import { mergeResults } from './lib/results-file.js';
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

/*
 * `npm run bench` (full) or `npm run bench:quick` (short runs for CI: timings are printed but
 * not judged; only the size budget fails the run). `--write-results=<label>` also writes the run
 * to bench/RESULTS.md under that label (e.g. "Loaded run", "Quiet run"), keeping the runs of other
 * labels. `--only=size,throughput,upstream,browser,outage,fleet,edge,chaos,embed` runs a subset (`rotation`: rows 5 alone; `engines`: rows 4m/4n in Firefox and WebKit alone).
 */
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const resultsArg = args.find((arg) => arg === '--write-results' || arg.startsWith('--write-results='));
const resultsLabel = resultsArg === undefined ? undefined : resultsArg.slice('--write-results='.length) || 'Last run';
const onlyArg = args.find((arg) => arg.startsWith('--only='));
const only = onlyArg ? new Set(onlyArg.slice('--only='.length).split(',')) : undefined;
const wanted = (name: string) => !only || only.has(name);

const machine = describeMachine();
const startedAt = performance.now();
const rows: Row[] = [];
/** Text printed under the table (the fleet projection). */
const notes: string[] = [];
const log = (message: string) => process.stderr.write(`bench: ${message}\n`);

let withinBudget: boolean | undefined = true;
if (wanted('size')) {
  log('1. bundle sizes');
  const size = await runSize();
  rows.push(...size.rows);
  withinBudget = size.withinBudget;
}
if (wanted('throughput')) {
  log('2. BFF throughput');
  rows.push(...(await runThroughput(quick)));
}
if (wanted('upstream')) {
  log('3. upstream efficiency');
  rows.push(...(await runUpstream(quick)));
}
if (wanted('browser')) {
  log('4–5. time to dashboard and rotation in Chromium (and the judged rows 4m/4n in Firefox and WebKit)');
  rows.push(...(await runBrowser(quick)));
} else if (wanted('engines')) {
  log('4m/4n. time to dashboard in Firefox and WebKit');
  rows.push(...(await runEngines(quick)));
}
if (!wanted('browser') && wanted('rotation')) {
  log("5. rotation in Chromium (and row 4a's baseline page)");
  rows.push(...(await runBrowser(quick, { timeToDashboard: false })));
}
if (wanted('outage')) {
  log('6. vendor outage with and without the circuit breaker');
  rows.push(...(await runOutage(quick)));
}
if (wanted('fleet')) {
  log("7. a fleet at the vendor's rate limit, with and without the vendor budget");
  const fleet = await runFleet(quick);
  rows.push(...fleet.rows);
  notes.push(...fleet.notes);
}
if (wanted('edge')) {
  log('8. the BFF as a Cloudflare Worker and an AWS Lambda function');
  rows.push(...(await runEdge(quick)));
}
if (wanted('chaos')) {
  log('9. the fleet under chaos: the cluster cold burst, and every fault of the chaos tests under a steady load');
  rows.push(...(await runChaos(quick)));
}
if (wanted('embed')) {
  log('10. embed tokens: vendor calls and token route latency per kind of token');
  rows.push(...(await runEmbed(quick)));
}

const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
const table = formatTable(rows);
const mode = quick ? 'quick (timings not judged)' : 'full';
const loadAtEnd = loadavg()
  .map((value) => value.toFixed(2))
  .join(' ');
const footer = `Mode: ${mode}. Ran in ${seconds} s on ${machine}; load average at the end ${loadAtEnd}.`;
const noteText = notes.length === 0 ? '' : `\n\n${notes.join('\n')}`;
console.log(`\n${table}\n\n${footer}${noteText}`);

if (resultsLabel !== undefined) {
  const file = join(benchDir, 'RESULTS.md');
  const preamble =
    'Full runs of `npm run bench`, explained row by row in [README.md](README.md), each under the label it was written with ' +
    '(`--write-results=<label>`), with the machine and its load. Every run written is kept; none is left out for being slow.';
  const section = `${table}\n\n${footer}${noteText}`;
  writeFileSync(file, mergeResults(existsSync(file) ? readFileSync(file, 'utf8') : '', preamble, resultsLabel, section));
  log(`wrote bench/RESULTS.md (${resultsLabel})`);
}

const strict = process.env.CI === 'true' || process.env.CI === '1' || process.env.EMBED_REQUIRE_TOOLS === '1';
const reasons = failureReasons({ rows, withinBudget, strict });
for (const reason of reasons) console.error(`bench: FAILED: ${reason}`);
if (reasons.length > 0) process.exitCode = 1;
