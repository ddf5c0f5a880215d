import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { Miniflare } from 'miniflare';
import { startRedisServer, type RedisServer } from '../../test/support/redis-server.js';
import { redisServerTool, workerdTool } from '../../test/support/tools.js';
import { bundleWorker } from '../../test/support/worker-bundle.js';
import { functionUrlEvent } from '../../packages/bff/test/support/lambda-events.js';
import { formatBytes, formatRatio, formatSpread, msValue } from '../lib/format.js';
import { benchDir, distScript, repoDir } from '../lib/paths.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { median, ratio } from '../lib/stats.js';
import { runWorkerdRows } from './workerd-rows.js';

/** Cloudflare's limit on a Worker's size after compression on the Workers Free plan (Paid: 10 MB). */
const WORKER_SIZE_LIMIT_BYTES = 3 * 1024 * 1024;
const SESSION_SECRET = 'bench-edge-session-secret-0123456789abcdef';
/** The compatibility date of examples/cloudflare-workers. */
const COMPATIBILITY_DATE = '2026-04-01';

const ROWS = [
  ['8a', 'Worker bundle (examples/cloudflare-workers, esbuild as wrangler), gzip', 'fixed target'],
  ['8b', 'Worker cold start: new workerd → first answer (GET /healthz), BFF vs bare Hono Worker', 'ratio (same run)'],
  ['8c', 'Lambda cold start: new Node process → first answer (GET /healthz), BFF handler vs bare Hono handler', 'ratio (same run)'],
] as const;

/** Milliseconds from a new workerd (miniflare) with `code` to its first `GET /healthz` answer. */
async function workerColdStart(code: string, bindings: Record<string, string>, withStore: boolean): Promise<number> {
  const started = performance.now();
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: 'worker.js', contents: code }],
    compatibilityDate: COMPATIBILITY_DATE,
    bindings,
    ...(withStore && { durableObjects: { EMBED_STORE: { className: 'EmbedStore', useSQLite: true } } }),
    cf: false,
    host: '127.0.0.1',
    port: 0,
    handleRuntimeStdio: () => undefined,
  });
  try {
    const url = (await mf.ready).origin;
    const response = await fetch(`${url}/healthz`);
    await response.text();
    if (response.status !== 200) throw new Error(`a Worker answered /healthz ${response.status}`);
    return performance.now() - started;
  } finally {
    await mf.dispose();
  }
}

/** One Lambda cold start in a new Node process (edge/lambda-invoke.ts): its own count from process start. */
function lambdaColdStart(handler: 'bff' | 'bare', env: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [distScript('edge/lambda-invoke.js')], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      try {
        const { ms, status } = JSON.parse(stdout.trim().split('\n').pop() ?? '') as { ms: number; status: number };
        if (code !== 0 || status !== 200) throw new Error(`status ${status}`);
        resolve(ms);
      } catch (error) {
        reject(new Error(`lambda cold start (${handler}) failed: ${(error as Error).message} ${stderr.slice(-300)}`));
      }
    });
    child.stdin.end(JSON.stringify({ handler, event: functionUrlEvent({ method: 'GET', path: '/healthz' }) }));
  });
}

const spreadRow = (id: string, metric: string, ours: number[], baseline: number[], quick: boolean, target: string): Row => ({
  id,
  metric,
  kind: 'ratio (same run)',
  ours: formatSpread(ours, msValue, 'ms'),
  baseline: formatSpread(baseline, msValue, 'ms'),
  ratio: formatRatio(ratio(median(ours), median(baseline))),
  target,
  result: quick ? 'not judged' : 'info',
});

/**
 * Rows 8a–8f: the BFF at the edge and on Lambda (bench/README.md §8). The Worker is the example's
 * two-line Worker bundled as wrangler does; cold starts alternate ours and the baseline, each a
 * new process (workerd, resp. Node), to the first answer.
 */
export async function runEdge(quick: boolean): Promise<Row[]> {
  const runs = quick ? 1 : 7;
  const rows: Row[] = [];
  let redis: RedisServer | undefined;
  try {
    if (!workerdTool().available) throw new NotAvailable('workerd not installed');
    const ours = await bundleWorker(join(repoDir, 'examples/cloudflare-workers/src/worker.ts'));
    const bare = await bundleWorker(join(benchDir, 'edge/bare-worker.ts'));
    rows.push({
      id: '8a',
      metric: ROWS[0][1],
      kind: 'fixed target',
      ours: `${formatBytes(ours.gzipBytes)} (${formatBytes(ours.bytes)} minified)`,
      baseline: `limit ${formatBytes(WORKER_SIZE_LIMIT_BYTES)} (Workers Free)`,
      ratio: formatRatio(ratio(ours.gzipBytes, WORKER_SIZE_LIMIT_BYTES)),
      target: '≤ 1.00×',
      result: ours.gzipBytes <= WORKER_SIZE_LIMIT_BYTES ? 'pass' : 'miss',
    });
    const bindings = {
      EMBED_UPSTREAM_URL: 'http://127.0.0.1:9',
      EMBED_UPSTREAM_API: 'explo-customer',
      EMBED_API_TOKEN: 'bench-customer-key',
      EMBED_SESSION_SECRET: SESSION_SECRET,
    };
    const oursMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      oursMs.push(await workerColdStart(ours.code, bindings, true));
      bareMs.push(await workerColdStart(bare.code, {}, false));
    }
    rows.push(spreadRow('8b', `${ROWS[1][1]}; bundle ${formatBytes(bare.gzipBytes)} gz bare`, oursMs, bareMs, quick, 'info'));
  } catch (error) {
    rows.push(...unavailableRows(ROWS.slice(0, 2), error));
  }
  try {
    const tool = redisServerTool();
    if (!tool.available) throw new NotAvailable('redis-server not installed');
    redis = await startRedisServer(tool.path);
    const env = {
      EMBED_UPSTREAM_URL: 'http://127.0.0.1:9',
      EMBED_API_TOKEN: 'bench-customer-key',
      EMBED_SESSION_SECRET: SESSION_SECRET,
      EMBED_REDIS_URL: redis.url,
    };
    const oursMs: number[] = [];
    const bareMs: number[] = [];
    for (let i = 0; i < runs; i++) {
      oursMs.push(await lambdaColdStart('bff', env));
      bareMs.push(await lambdaColdStart('bare', {}));
    }
    rows.push(spreadRow('8c', ROWS[2][1], oursMs, bareMs, quick, 'info'));
  } catch (error) {
    rows.push(...unavailableRows(ROWS.slice(2), error));
  } finally {
    await redis?.dispose();
  }
  rows.push(...(await runWorkerdRows(quick)));
  return rows;
}
