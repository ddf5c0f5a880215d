import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { send, startWorkerd, workerdChildren, type Workerd } from '../../test/workers/harness.js';
import { startRedisServer, type RedisServer } from '../../test/support/redis-server.js';
import { redisServerTool, workerdTool } from '../../test/support/tools.js';
import { startBff, tokenUrl } from '../lib/bff.js';
import { cpuSeconds } from '../lib/cpu.js';
import { BENCH_API_KEY, startEmulator, type BenchEmulator } from '../lib/emulator.js';
import { countValue, formatRatio, formatSpread, msValue } from '../lib/format.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { SESSION, signSession, tokenRequestHeaders } from '../lib/session.js';
import { median, ratio } from '../lib/stats.js';
import type { BenchProcess } from '../lib/process.js';

export const WORKERD_ROWS = [
  ['8d', 'cold-burst fleet on Durable Objects: vendor calls per new customer (get-or-create + update + rotate, /__emulator/stats)', 'fixed target'],
  ['8e', 'cold-burst fleet on Durable Objects: vendor 429s, visitors who never got a token', 'fixed target'],
  ['8f', 'CPU per cached POST /embed/token: the BFF Worker in workerd (Durable Object store) vs the BFF CLI on Node (Redis store)', 'ratio (same run)'],
] as const;

/** The vendor's limit for the fleet rows, and the budget below it (as in test/workers): bucket 20 then 1/s; the fleet 48 a minute, bucket 16. */
const VENDOR_LIMIT = ['--rate-limit', '60', '--rate-limit-burst', '20'];
/** How long one visitor keeps retrying (503/504 with Retry-After) before it counts as never served. */
const VISITOR_PATIENCE_MS = 120_000;
/** Concurrent connections of the CPU rounds' load. */
const CONNECTIONS = 10;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One visitor: asks for its token until it has one, waiting out each 503/504/429's Retry-After; ms to its token, or undefined. */
async function visit(ask: () => Promise<Response>, started: number): Promise<number | undefined> {
  while (Date.now() - started < VISITOR_PATIENCE_MS) {
    const response = await ask();
    const body = await response.text();
    if (response.status === 200) return Date.now() - started;
    if (![429, 503, 504].includes(response.status)) throw new Error(`a visitor got ${response.status}: ${body.slice(0, 200)}`);
    await sleep(1000 * Math.max(1, Number(response.headers.get('retry-after') ?? 1)));
  }
  return undefined;
}

/** `count` cached token requests, CONNECTIONS at a time; every answer must be 200. */
async function cachedLoad(ask: () => Promise<Response>, count: number): Promise<void> {
  let left = count;
  const worker = async () => {
    while (left-- > 0) {
      const response = await ask();
      await response.text();
      if (response.status !== 200) throw new Error(`a cached token request answered ${response.status}`);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

/**
 * A token request's headers without `Origin`: miniflare's entry Worker refuses an Origin other than
 * its own host ("Invalid Origin header") before the BFF sees it. Both sides get the same headers.
 */
const headersOf = (session: string): Record<string, string> => {
  const { origin: _origin, ...headers } = tokenRequestHeaders(session);
  return headers;
};

const cpuOf = (pids: readonly number[]): number => pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);

/**
 * Rows 8d–8f in one workerd (two Worker isolates, bff-a and bff-b, sharing the Durable Objects,
 * test/workers/test-worker.ts) against one emulator CLI with the vendor's limit: a cold burst of
 * new customers spread over both isolates under the fleet's budget (row 7's promises on Durable
 * Objects), then the CPU of cached token requests in workerd against the Node CLI with Redis.
 */
export async function runWorkerdRows(quick: boolean): Promise<Row[]> {
  const rows: Row[] = [];
  const persistDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'bench-edge-'));
  let emulator: BenchEmulator | undefined;
  let w: Workerd | undefined;
  let redis: RedisServer | undefined;
  let bff: BenchProcess | undefined;
  try {
    if (!workerdTool().available) throw new NotAvailable('workerd not installed');
    emulator = await startEmulator('edge-fleet-emulator', VENDOR_LIMIT);
    const vendor = emulator;
    w = await startWorkerd({
      persistDir,
      bindings: {
        EMBED_UPSTREAM_URL: vendor.url,
        EMBED_UPSTREAM_API: 'explo-customer',
        EMBED_API_TOKEN: BENCH_API_KEY,
        EMBED_SESSION_SECRET: SESSION.secret,
        EMBED_SESSION_ISSUER: SESSION.issuer,
        EMBED_SESSION_AUDIENCE: SESSION.audience,
        EMBED_ALLOWED_ORIGINS: SESSION.origin,
        EMBED_UPSTREAM_RATE: '48',
        EMBED_UPSTREAM_BURST: '16',
        EMBED_RATE_LIMIT: '0',
      },
    });
    const worker = w;
    const ask = (headers: Record<string, string>, isolate: number) => () =>
      isolate % 2
        ? send(`${worker.url}/embed/token`, { method: 'POST', headers, body: '{}' })
        : worker.fetchB('/embed/token', { method: 'POST', headers, body: '{}' });

    // 8d/8e: every customer new, each visited `visits` times at once, spread over both isolates.
    const customers = quick ? 6 : 40;
    const visits = quick ? 2 : 5;
    const sessions = await Promise.all(Array.from({ length: customers }, (_, i) => signSession(`edge-fleet-${i}`)));
    await vendor.reset();
    const started = Date.now();
    const served = await Promise.all(
      sessions.flatMap((session, i) => Array.from({ length: visits }, (_, k) => visit(ask(headersOf(session), i + k), started))),
    );
    const seconds = (Date.now() - started) / 1000;
    const stats = await vendor.stats();
    const calls = stats.requests.getOrCreate + stats.requests.update + stats.requests.rotate;
    const never = served.filter((ms) => ms === undefined).length;
    const times = served.filter((ms): ms is number => ms !== undefined);
    rows.push({
      id: WORKERD_ROWS[0][0],
      metric: `${WORKERD_ROWS[0][1]} (${customers} new customers × ${visits} concurrent visits over 2 isolates; budget 48/min burst 16 under the vendor's 60/min burst 20)`,
      kind: 'fixed target',
      ours: `${countValue(calls)} calls (${stats.requests.getOrCreate} get-or-create, ${stats.requests.update} update, ${stats.requests.rotate} rotate); time to token ${formatSpread(times, msValue, 'ms')}; run ${seconds.toFixed(1)} s`,
      baseline: `${customers} customers (1 call each)`,
      ratio: formatRatio(calls / customers),
      target: '= 1.00×',
      result: calls === customers ? 'pass' : 'miss',
    });
    rows.push({
      id: WORKERD_ROWS[1][0],
      metric: WORKERD_ROWS[1][1],
      kind: 'fixed target',
      ours: `${countValue(stats.rejected.rateLimited)} vendor 429s; ${never} of ${served.length} visitors without a token after ${VISITOR_PATIENCE_MS / 1000} s`,
      baseline: '0 and 0',
      ratio: '',
      target: '= 0',
      result: stats.rejected.rateLimited === 0 && never === 0 ? 'pass' : 'miss',
    });

    // 8f: one served customer's cached token, asked for over and over; each server's whole CPU.
    const tool = redisServerTool();
    if (!tool.available) throw new NotAvailable('redis-server not installed');
    redis = await startRedisServer(tool.path);
    bff = await startBff({ upstreamUrl: vendor.url, redisUrl: redis.url, logName: 'edge-cpu-bff', env: { EMBED_RATE_LIMIT: '0' } });
    const node = bff;
    const headers = headersOf(sessions[0]!);
    const askNode = () => send(tokenUrl(node.url), { method: 'POST', headers, body: '{}' });
    if ((await visit(askNode, Date.now())) === undefined) throw new Error('the Node BFF served no token');
    const workerdPids = workerdChildren();
    const nodePids = [node.child.pid!, ...workerdChildren('redis-server')];
    if (workerdPids.length === 0 || nodePids.length < 2) throw new Error('the servers’ processes were not found in /proc');
    const amount = quick ? 50 : 1_500;
    const rounds = quick ? 1 : 5;
    // One unmeasured round each: both runtimes compile their hot paths first.
    if (!quick) {
      await cachedLoad(ask(headers, 1), Math.min(amount, 300));
      await cachedLoad(askNode, Math.min(amount, 300));
    }
    const perRequest = { workerd: [] as number[], node: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      for (const [side, pids, load] of [
        ['workerd', workerdPids, ask(headers, 1)],
        ['node', nodePids, askNode],
      ] as const) {
        const before = cpuOf(pids);
        await cachedLoad(load, amount);
        perRequest[side].push(((cpuOf(pids) - before) / amount) * 1e6);
      }
    }
    const us = (value: number) => value.toFixed(0);
    rows.push({
      id: WORKERD_ROWS[2][0],
      metric: `${WORKERD_ROWS[2][1]}: whole-process CPU (/proc), workerd = both isolates + the Durable Objects + miniflare's entry Worker, Node = BFF + redis-server (${rounds}×${amount} requests, ${CONNECTIONS} connections, no keep-alive)`,
      kind: 'ratio (same run)',
      ours: formatSpread(perRequest.workerd, us, 'µs'),
      baseline: `Node ${formatSpread(perRequest.node, us, 'µs')}`,
      ratio: formatRatio(ratio(median(perRequest.workerd), median(perRequest.node))),
      target: 'info',
      result: quick ? 'not judged' : 'info',
    });
  } catch (error) {
    rows.push(...unavailableRows(WORKERD_ROWS.slice(rows.length), error));
  } finally {
    await bff?.stop();
    await redis?.dispose();
    await w?.dispose();
    await emulator?.stop();
    rmSync(persistDir, { recursive: true, force: true });
  }
  return rows;
}
