import { tokenUrl, startBff } from '../lib/bff.js';
import { cpuSeconds } from '../lib/cpu.js';
import { startEmulator, type BenchEmulator } from '../lib/emulator.js';
import { formatMs, formatRate, formatRatio } from '../lib/format.js';
import { distScript } from '../lib/paths.js';
import { runJsonProcess, startServerProcess, type BenchProcess } from '../lib/process.js';
import { judgeTiming, unavailableRows, type Row } from '../lib/row.js';
import { signSession, tokenRequestHeaders } from '../lib/session.js';
import { median, ratio } from '../lib/stats.js';
import type { LoadRequest, LoadResult } from './load.js';

const METRICS = [
  ['2a', 'BFF throughput: cached POST /embed/token'],
  ['2b', 'BFF latency p50'],
  ['2c', 'BFF latency p99'],
] as const;

/** Throughput must stay at or above this share of the bare Hono app's. */
const TARGET_RATIO = 0.7;
const CONNECTIONS = 10;

interface Measured extends LoadResult {
  /** Share of one core the server used while under load (1 = one core saturated). */
  serverCpu: number;
}

/**
 * Row 2: the BFF's cached token route against a bare Hono app answering a constant JSON, each
 * in its own process, loaded by autocannon in a third process, alternating rounds so drifting
 * machine load hits both alike.
 */
export async function runThroughput(quick: boolean): Promise<Row[]> {
  const stoppers: Array<() => Promise<void>> = [];
  try {
    const emulator: BenchEmulator = await startEmulator('throughput-emulator');
    stoppers.push(emulator.stop);
    // One session sends every request, so the per-session rate limit is raised out of reach;
    // the BFF still counts each request against it, as in production.
    const bff = await startBff({ upstreamUrl: emulator.url, logName: 'throughput-bff', env: { EMBED_RATE_LIMIT: '1000000000' } });
    stoppers.push(() => bff.stop());
    const bare = await startServerProcess(distScript('throughput/bare-server.js'), [], { readyPrefix: 'bare listening on ', logName: 'throughput-bare' });
    stoppers.push(() => bare.stop());

    const headers = tokenRequestHeaders(await signSession('bench-throughput'));
    // Warm: the group is created upstream and cached before the clock starts.
    const warm = await fetch(tokenUrl(bff.url), { method: 'POST', headers, body: '{}' });
    if (warm.status !== 200) throw new Error(`warm-up POST /embed/token answered ${warm.status}: ${(await warm.text()).slice(0, 200)}`);

    const rounds = quick ? 1 : 3;
    const durationSeconds = quick ? 2 : 8;
    const results: { bare: Measured[]; bff: Measured[] } = { bare: [], bff: [] };
    for (let round = 0; round < rounds; round++) {
      results.bare.push(await load(bare, tokenUrl(bare.url), headers, durationSeconds));
      results.bff.push(await load(bff, tokenUrl(bff.url), headers, durationSeconds));
    }
    const upstream = await emulator.stats();

    const figure = (side: Measured[], pick: (m: Measured) => number) => median(side.map(pick));
    const rps = { bff: figure(results.bff, (m) => m.requestsPerSecond), bare: figure(results.bare, (m) => m.requestsPerSecond) };
    const cpu = { bff: figure(results.bff, (m) => m.serverCpu), bare: figure(results.bare, (m) => m.serverCpu) };
    const p50 = { bff: figure(results.bff, (m) => m.p50Ms), bare: figure(results.bare, (m) => m.p50Ms) };
    const p99 = { bff: figure(results.bff, (m) => m.p99Ms), bare: figure(results.bare, (m) => m.p99Ms) };
    const throughputRatio = ratio(rps.bff, rps.bare);
    const cpuNote = (share: number) => (Number.isFinite(share) ? `, server CPU ${(share * 100).toFixed(0)}%` : '');
    const setup = `${CONNECTIONS} conn, ${rounds}×${durationSeconds}s`;
    return [
      {
        id: '2a',
        metric: `${METRICS[0][1]} (${setup}; upstream get-or-create calls: ${upstream.requests.getOrCreate})`,
        ours: `${formatRate(rps.bff)}${cpuNote(cpu.bff)}`,
        baseline: `bare Hono ${formatRate(rps.bare)}${cpuNote(cpu.bare)}`,
        ratio: formatRatio(throughputRatio),
        target: `≥ ${TARGET_RATIO.toFixed(2)}×`,
        result: judgeTiming(throughputRatio >= TARGET_RATIO, quick),
      },
      latencyRow(METRICS[1], p50),
      latencyRow(METRICS[2], p99),
    ];
  } catch (error) {
    return unavailableRows(METRICS, error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}

/** autocannon records whole milliseconds: a bare app answering under 1 ms has no ratio. */
function latencyRow([id, metric]: readonly [string, string], figures: { bff: number; bare: number }): Row {
  return {
    id,
    metric: `${metric} (autocannon, 1 ms resolution)`,
    ours: formatMs(figures.bff),
    baseline: `bare Hono ${formatMs(figures.bare)}`,
    ratio: figures.bare === 0 ? 'n/a (bare < 1 ms)' : formatRatio(ratio(figures.bff, figures.bare)),
    target: '',
    result: 'info',
  };
}

async function load(server: BenchProcess, url: string, headers: Record<string, string>, durationSeconds: number): Promise<Measured> {
  const request: LoadRequest = { url, connections: CONNECTIONS, durationSeconds, headers, body: '{}' };
  const cpuBefore = cpuSeconds(server.child.pid);
  const result = await runJsonProcess<LoadResult>(distScript('throughput/load.js'), request, (durationSeconds + 30) * 1000);
  // A figure made of error responses would flatter whichever side failed fastest.
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts of ${result.total} (see bench/.tmp/*.log)`);
  }
  // The server idles while the load generator starts and stops, so its busy time is the load's duration.
  return { ...result, serverCpu: (cpuSeconds(server.child.pid) - cpuBefore) / durationSeconds };
}
