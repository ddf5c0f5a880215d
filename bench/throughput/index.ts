import { tokenUrl, startBff } from '../lib/bff.js';
import { cpuSeconds } from '../lib/cpu.js';
import { startEmulator, type BenchEmulator } from '../lib/emulator.js';
import { countValue, formatRatio, formatSpread, msValue } from '../lib/format.js';
import { distScript } from '../lib/paths.js';
import { LOAD_CPU, SERVER_CPU, pinnedNode } from '../lib/pin.js';
import { runJsonProcess, startServerProcess, type BenchProcess } from '../lib/process.js';
import { judgeTiming, unavailableRows, type Row, type RowKind } from '../lib/row.js';
import { signSession, tokenRequestHeaders } from '../lib/session.js';
import { median, ratio } from '../lib/stats.js';
import type { LoadRequest, LoadResult } from './load.js';

const SAME_RUN: RowKind = 'ratio (same run)';
const METRICS = [
  ['2a', 'BFF efficiency: cached POST /embed/token, server CPU time per request', SAME_RUN],
  ['2b', 'BFF throughput: cached POST /embed/token, requests per second', SAME_RUN],
  ['2c', 'BFF latency p50 / p99', SAME_RUN],
] as const;

/** Requests per CPU second must stay at or above this share of the bare Hono app's. */
const TARGET_RATIO = 0.7;
const CONNECTIONS = 10;

interface Measured extends LoadResult {
  /** CPU seconds the server used for the round (from /proc), NaN where /proc is missing. */
  serverCpuSeconds: number;
}

const perRequestUs = (m: Measured) => (m.serverCpuSeconds / m.total) * 1e6;
const serverShare = (m: Measured) => m.serverCpuSeconds / m.seconds;

/**
 * Row 2: the BFF's cached token route against a bare Hono app answering a constant JSON, each
 * in its own process, loaded by autocannon in a third process with a fixed number of requests
 * per round, rounds alternating so drifting machine load hits both alike. With `taskset` the
 * servers run on one CPU and the load generator on another, so each server is CPU-bound on a
 * core of its own; the judged figure is server CPU time per request, which does not depend on
 * how fast the load generator or the machine is.
 */
/** Whether the servers and the load generator run pinned to CPUs of their own (full runs). */
let pinning = true;

export async function runThroughput(quick: boolean): Promise<Row[]> {
  const stoppers: Array<() => Promise<void>> = [];
  try {
    const emulator: BenchEmulator = await startEmulator('throughput-emulator');
    stoppers.push(emulator.stop);
    // One session sends every request, so the per-session rate limit is raised out of reach;
    // the BFF still counts each request against it, as in production.
    // Quick (CI) pins nothing: a pinned process waits for its one core while the other lanes run, and quick timings are not judged.
    pinning = !quick;
    const serverCpu = pinning ? { cpu: SERVER_CPU } : {};
    const bff = await startBff({ upstreamUrl: emulator.url, logName: 'throughput-bff', ...serverCpu, env: { EMBED_RATE_LIMIT: '1000000000' } });
    stoppers.push(() => bff.stop());
    const bare = await startServerProcess(distScript('throughput/bare-server.js'), [], {
      readyPrefix: 'bare listening on ',
      logName: 'throughput-bare',
      ...serverCpu,
    });
    stoppers.push(() => bare.stop());
    const pinned = pinning && pinnedNode(LOAD_CPU, []).pinned;

    const headers = tokenRequestHeaders(await signSession('bench-throughput'));
    // Warm: the group is created upstream and cached before the clock starts.
    const warm = await fetch(tokenUrl(bff.url), { method: 'POST', headers, body: '{}' });
    if (warm.status !== 200) throw new Error(`warm-up POST /embed/token answered ${warm.status}: ${(await warm.text()).slice(0, 200)}`);
    const upstreamBefore = await emulator.stats();

    // Enough requests for /proc's 10 ms CPU ticks to resolve ~2 % (about 0.5 CPU-s per round on a
    // quiet machine), few enough that a machine busy with other work still finishes in minutes.
    // Quick (CI) proves the path with a few hundred requests and no warm-up: its timings are not judged.
    const rounds = quick ? 1 : 3;
    const amount = quick ? 300 : 15_000;
    // One unmeasured round each lets V8 optimize both servers' hot paths first.
    if (!quick) {
      await load(bare, tokenUrl(bare.url), headers, Math.min(amount, 5_000));
      await load(bff, tokenUrl(bff.url), headers, Math.min(amount, 5_000));
    }
    const results: { bare: Measured[]; bff: Measured[] } = { bare: [], bff: [] };
    for (let round = 0; round < rounds; round++) {
      results.bare.push(await load(bare, tokenUrl(bare.url), headers, amount));
      results.bff.push(await load(bff, tokenUrl(bff.url), headers, amount));
    }
    const upstreamAfter = await emulator.stats();
    const upstreamCalls = (['getOrCreate', 'update', 'rotate'] as const).reduce((sum, op) => sum + upstreamAfter.requests[op] - upstreamBefore.requests[op], 0);

    const med = (side: Measured[], pick: (m: Measured) => number) => median(side.map(pick));
    const cpuRatio = ratio(med(results.bare, perRequestUs), med(results.bff, perRequestUs));
    const rpsRatio = ratio(
      med(results.bff, (m) => m.requestsPerSecond),
      med(results.bare, (m) => m.requestsPerSecond),
    );
    const setup = `${CONNECTIONS} conn, ${rounds}×${countValue(amount)} requests, ${pinned ? `servers on CPU ${SERVER_CPU}, load generator on CPU ${LOAD_CPU} (taskset)` : pinning ? 'not pinned (no taskset)' : 'not pinned (quick)'}`;
    const share = (side: Measured[]) =>
      `server CPU ${formatSpread(
        side.map((m) => serverShare(m) * 100),
        (v) => v.toFixed(0),
        '%',
      )}`;
    const generator = `load generator CPU ${med([...results.bare, ...results.bff], (m) => (m.generatorCpuSeconds / m.seconds) * 100).toFixed(0)}%`;
    return [
      {
        id: METRICS[0][0],
        metric: `${METRICS[0][1]} (${setup}; upstream calls during the rounds: ${upstreamCalls})`,
        kind: SAME_RUN,
        ours: `${formatSpread(results.bff.map(perRequestUs), (v) => v.toFixed(1), 'µs')}`,
        baseline: `bare Hono ${formatSpread(results.bare.map(perRequestUs), (v) => v.toFixed(1), 'µs')}`,
        ratio: `${formatRatio(cpuRatio)} req per CPU-s`,
        target: `≥ ${TARGET_RATIO.toFixed(2)}×`,
        result: judgeTiming(cpuRatio >= TARGET_RATIO, quick),
      },
      {
        id: METRICS[1][0],
        metric: `${METRICS[1][1]} (same rounds; ${generator})`,
        kind: SAME_RUN,
        ours: `${formatSpread(
          results.bff.map((m) => m.requestsPerSecond),
          countValue,
          'req/s',
        )}, ${share(results.bff)}`,
        baseline: `bare Hono ${formatSpread(
          results.bare.map((m) => m.requestsPerSecond),
          countValue,
          'req/s',
        )}, ${share(results.bare)}`,
        ratio: formatRatio(rpsRatio),
        target: '',
        result: 'info',
      },
      latencyRow(results),
    ];
  } catch (error) {
    return unavailableRows(METRICS, error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}

/** autocannon records whole milliseconds: a bare app answering under 1 ms has no ratio. */
function latencyRow(results: { bare: Measured[]; bff: Measured[] }): Row {
  const p = (side: Measured[]) =>
    `p50 ${msValue(median(side.map((m) => m.p50Ms)))} / p99 ${msValue(median(side.map((m) => m.p99Ms)))} ms (p99 ${formatSpread(
      side.map((m) => m.p99Ms),
      msValue,
      'ms',
    )})`;
  const bareP99 = median(results.bare.map((m) => m.p99Ms));
  return {
    id: METRICS[2][0],
    metric: `${METRICS[2][1]} (autocannon, 1 ms resolution; medians over the rounds)`,
    kind: SAME_RUN,
    ours: p(results.bff),
    baseline: `bare Hono ${p(results.bare)}`,
    ratio: bareP99 === 0 ? 'n/a (bare p99 < 1 ms)' : `p99 ${formatRatio(ratio(median(results.bff.map((m) => m.p99Ms)), bareP99))}`,
    target: '',
    result: 'info',
  };
}

async function load(server: BenchProcess, url: string, headers: Record<string, string>, amount: number): Promise<Measured> {
  const request: LoadRequest = { url, connections: CONNECTIONS, amount, headers, body: '{}' };
  const cpuBefore = cpuSeconds(server.child.pid);
  const result = await runJsonProcess<LoadResult>(distScript('throughput/load.js'), request, 120_000, pinning ? LOAD_CPU : undefined);
  // A figure made of error responses would flatter whichever side failed fastest.
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.total} (see bench/.tmp/*.log)`);
  }
  // The server idles while the load generator starts and stops: CPU time counts only its work.
  return { ...result, serverCpuSeconds: cpuSeconds(server.child.pid) - cpuBefore };
}
