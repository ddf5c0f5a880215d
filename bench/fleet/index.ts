import { recordSeries } from '../lib/run-record.js';
import { createConnection } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TOKEN_REQUEST_TIMEOUT_MS } from '@embedded-dashboard/protocol';
import { startRedisServer, type RedisServer } from '../../test/support/redis-server.js';
import { redisServerTool } from '../../test/support/tools.js';
import { startBff, tokenUrl } from '../lib/bff.js';
import { cpuSeconds } from '../lib/cpu.js';
import { startEmulator, type BenchEmulator } from '../lib/emulator.js';
import { countValue, formatRatio } from '../lib/format.js';
import { repoDir } from '../lib/paths.js';
import type { BenchProcess } from '../lib/process.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { ratio } from '../lib/stats.js';
import { signSession, tokenRequestHeaders } from '../lib/session.js';
import {
  arrivalOffsetMs,
  opsBetween,
  redisCommands,
  sumCounter,
  summarizeVisits,
  totalOps,
  type VendorOps,
  type Visit,
  type VisitSummary,
} from './analysis.js';
import { DEFAULT_REVALIDATE_AFTER_SECONDS, describeProjection, MILLION_CUSTOMERS, type MeasuredCosts } from './projection.js';

/** The element's own retry policy (full-jitter backoff, `Retry-After` when longer), from its build. */
type RetryDelay = (retry: number, retryAfterMs: number, random: () => number) => number;
const loadRetryDelay = async (): Promise<RetryDelay> =>
  ((await import(pathToFileURL(join(repoDir, 'packages/element/dist/token/backoff.js')).href)) as { retryDelay: RetryDelay }).retryDelay;

const ROWS = [
  ['7a', 'vendor 429s during the fleet run', 'fixed target'],
  ['7b', 'vendor calls per new customer (get-or-create + update + rotate, /__emulator/stats)', 'fixed target'],
  ['7c', 'time to first token, p50 (min / med / max over the visitors)', 'ratio (same run)'],
  ['7d', 'time to first token, p99', 'ratio (same run)'],
  ['7e', 'visitors who never got a token', 'fixed target'],
  ['7f', 'measured per-request costs (model inputs of the projection)', 'fixed target'],
  ['7g', 'vendor calls per returning customer whose store entry expired (the store emptied, then served customers ask again)', 'fixed target'],
] as const;

/** What the row's run is made of. Full: the numbers; quick: a hundredth, to prove it runs (CI time). */
interface Plan {
  visitors: number;
  spreadMs: number;
  /** A visitor stops asking this long after its arrival (the element would go on). */
  giveUpMs: number;
  /** A served visitor asks again (another page view) about this often until the run ends. */
  returnEveryMs: number;
  revalidateAfterSeconds: number;
  cachedRequests: number;
  /** BFF processes per fleet. */
  processes: number;
  /** Returning customers asked again after the store was emptied (row 7g). */
  expiredCustomers: number;
}
const FULL: Plan = {
  visitors: 1_000,
  spreadMs: 60_000,
  giveUpMs: 600_000,
  returnEveryMs: 20_000,
  revalidateAfterSeconds: 60,
  cachedRequests: 2_000,
  processes: 4,
  expiredCustomers: 20,
};
/** Quick (CI): the least that runs every part once: a fleet of two processes (still a fleet sharing Redis), a few visitors. */
const QUICK: Plan = {
  visitors: 10,
  spreadMs: 1_000,
  giveUpMs: 120_000,
  returnEveryMs: 1_000,
  revalidateAfterSeconds: 15,
  cachedRequests: 50,
  processes: 2,
  expiredCustomers: 5,
};
const VENDOR_LIMIT = 180;
const BUDGET = 150;
const RETRYABLE = new Set([429, 502, 503, 504]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const progress = (message: string) => process.stderr.write(`bench: 7. ${message}\n`);
const seconds = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);

/** One fleet: an emulator with the vendor's limit, a Redis, BFF CLI processes sharing it. */
interface Fleet {
  name: string;
  emulator: BenchEmulator;
  redis: RedisServer;
  bffs: Array<{ process: BenchProcess; tokenUrl: string; metricsUrl: string }>;
}

async function startFleet(name: string, redisPath: string, budget: number, plan: Plan, stoppers: Array<() => Promise<void>>): Promise<Fleet> {
  const emulator = await startEmulator(`fleet-${name}-emulator`, ['--rate-limit', String(VENDOR_LIMIT)]);
  stoppers.push(emulator.stop);
  const redis = await startRedisServer(redisPath);
  stoppers.push(redis.dispose);
  // One after the other, each given a minute: eight Node processes starting at once on a busy
  // two-core machine can take longer than the usual 20 s.
  const bffs: Fleet['bffs'] = [];
  for (let i = 0; i < plan.processes; i++) {
    bffs.push(
      await (async () => {
        const process = await startBff({
          upstreamUrl: emulator.url,
          logName: `fleet-${name}-bff-${i + 1}`,
          redisUrl: redis.url,
          startTimeoutMs: 60_000,
          env: {
            EMBED_UPSTREAM_RATE: String(budget),
            EMBED_REVALIDATE_AFTER: String(plan.revalidateAfterSeconds),
            EMBED_METRICS_PORT: '0',
            // As row 2: the per-session limit still counts every request (its Redis work is measured) but never answers 429.
            EMBED_RATE_LIMIT: '1000000000',
          },
        });
        stoppers.push(() => process.stop());
        return { process, tokenUrl: tokenUrl(process.url), metricsUrl: await metricsUrlOf(process) };
      })(),
    );
  }
  return { name, emulator, redis, bffs };
}

/** The `/metrics` URL a BFF CLI logged (`metrics listening`), read from its log file. */
async function metricsUrlOf(bff: BenchProcess): Promise<string> {
  for (let polls = 0; polls < 400; polls++) {
    const line = readFileSync(bff.logFile, 'utf8')
      .split('\n')
      .find((l) => l.includes('metrics listening'));
    const url = line && /"url":"(http[^"]+)"/.exec(line)?.[1];
    if (url) return url;
    await sleep(50);
  }
  throw new Error(`${bff.logFile}: no "metrics listening" line`);
}

async function fleetCounter(fleet: Fleet, name: string, labels: Record<string, string>): Promise<number> {
  const texts = await Promise.all(fleet.bffs.map(async (bff) => (await fetch(bff.metricsUrl)).text()));
  return texts.reduce((sum, text) => sum + sumCounter(text, name, labels), 0);
}

/**
 * One inline command over a plain RESP connection (no client library for two commands): the
 * payload of a bulk-string answer (`INFO`), or the status line of a simple one (`+OK`).
 */
function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port }, () => socket.write(`${command}\r\n`));
    let data = Buffer.alloc(0);
    socket.setTimeout(5_000, () => socket.destroy(new Error(`redis ${command} timed out`)));
    socket.on('data', (chunk: Buffer) => {
      data = Buffer.concat([data, chunk]);
      const header = data.indexOf('\r\n');
      if (header < 0) return;
      const first = data.subarray(0, header).toString();
      if (first[0] !== '$') {
        socket.end();
        return first[0] === '+' ? resolve(first.slice(1)) : reject(new Error(`redis ${command}: ${first}`));
      }
      const length = Number(first.slice(1));
      if (data.length >= header + 2 + length) {
        socket.end();
        resolve(data.subarray(header + 2, header + 2 + length).toString());
      }
    });
    socket.on('error', reject);
  });
}
const redisCommandCount = async (fleet: Fleet) => redisCommands(await redisCommand(fleet.redis.port, 'INFO commandstats'));

interface Traffic {
  requests: number;
  /** Of those, requests of served visitors coming back. */
  returns: number;
}

/** One token request; the status, or 0 when it failed or timed out (retried like a 503). */
async function ask(url: string, session: string, traffic: Traffic): Promise<{ status: number; retryAfterMs: number }> {
  traffic.requests += 1;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: tokenRequestHeaders(session),
      body: '{}',
      signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS),
    });
    await response.arrayBuffer();
    return { status: response.status, retryAfterMs: Number(response.headers.get('retry-after') ?? 0) * 1000 || 0 };
  } catch {
    return { status: 0, retryAfterMs: 0 };
  }
}

/** Resolves once every first visit has settled; after that, served visitors stop coming back. */
interface RunEnd {
  ended: boolean;
  promise: Promise<void>;
}

/**
 * One first visit: asks for a token at its arrival and, refused, retries as the element does
 * (its backoff, or `Retry-After` when longer) until served or `giveUpMs` after arriving. Once
 * served it keeps coming back (other page views of that customer) until the run ends: those
 * requests are the background revalidation once the group's entry is older than the interval.
 */
async function visit(
  url: string,
  session: string,
  arrivedAt: number,
  plan: Plan,
  retryDelay: RetryDelay,
  traffic: Traffic,
  settled: () => void,
  end: RunEnd,
): Promise<Visit> {
  await sleep(Math.max(0, arrivedAt - Date.now()));
  let servedAt: number | undefined;
  let attempts = 0;
  try {
    for (let retry = 1; servedAt === undefined; retry++) {
      attempts += 1;
      const answer = await ask(url, session, traffic);
      if (answer.status === 200) servedAt = Date.now();
      else if (answer.status !== 0 && !RETRYABLE.has(answer.status)) break;
      else {
        const delay = retryDelay(retry, answer.retryAfterMs, Math.random);
        if (Date.now() + delay > arrivedAt + plan.giveUpMs) break;
        await sleep(delay);
      }
    }
  } finally {
    settled();
  }
  while (servedAt !== undefined && !end.ended) {
    await Promise.race([sleep(plan.returnEveryMs * (0.5 + Math.random())), end.promise]);
    if (end.ended) break;
    traffic.returns += 1;
    await ask(url, session, traffic);
  }
  return { arrivedAt, servedAt, attempts };
}

interface FleetResult {
  summary: VisitSummary;
  /** Vendor calls of the measured part, every type. */
  calls: VendorOps;
  /** Revalidations the budget admitted (its metric; `NaN` without a budget). */
  revalidations: number;
  rateLimited: number;
  /** The account's environment probe: vendor calls before the first customer. */
  probeCalls: number;
  traffic: Traffic;
  wallMs: number;
  redisCommands: number;
  visits: Visit[];
  sessions: string[];
}

/** Runs the visitors through `fleet` and counts what the vendor saw. */
async function runVisitors(fleet: Fleet, plan: Plan, budgeted: boolean, retryDelay: RetryDelay): Promise<FleetResult> {
  // One customer through every process first: the account's environment is learned once per
  // account (the probe group's get-or-create + update), a one-time cost stated apart.
  const warmUpSession = await signSession(`fleet-${fleet.name}-warm-up`);
  const start = await fleet.emulator.stats();
  for (const bff of fleet.bffs) {
    const answer = await ask(bff.tokenUrl, warmUpSession, { requests: 0, returns: 0 });
    if (answer.status !== 200) throw new Error(`warm-up answered ${answer.status} (see bench/.tmp/fleet-${fleet.name}-*.log)`);
  }
  const before = await fleet.emulator.stats();
  const probeCalls = totalOps(opsBetween(start.requests, before.requests)) - 1;
  const revalidationsBefore = budgeted ? await fleetCounter(fleet, 'embed_bff_budget_used_total', { priority: 'revalidation' }) : Number.NaN;
  const redisBefore = await redisCommandCount(fleet);

  const sessions = await Promise.all(Array.from({ length: plan.visitors }, (_, i) => signSession(`fleet-${fleet.name}-${i}`)));
  const traffic: Traffic = { requests: 0, returns: 0 };
  const startedAt = Date.now() + 200;
  let endRun = () => {};
  const end: RunEnd = { ended: false, promise: new Promise<void>((resolve) => (endRun = resolve)) };
  let settled = 0;
  // The run ends when every first visit has settled (served or given up); returns stop then.
  const onSettled = () => {
    if (++settled < plan.visitors) return;
    end.ended = true;
    endRun();
  };
  // The vendor's counters over the run, for the plot of the fleet's calls over time.
  const calls: Array<[number, number]> = [];
  const refused: Array<[number, number]> = [];
  const sample = async () => {
    const now = await fleet.emulator.stats().catch(() => undefined);
    if (!now) return;
    const at = (Date.now() - startedAt) / 1000;
    calls.push([at, totalOps(opsBetween(before.requests, now.requests))]);
    refused.push([at, now.rejected.rateLimited - before.rejected.rateLimited]);
  };
  const sampler = setInterval(() => void sample(), plan.spreadMs >= 10_000 ? 1_000 : 250);
  const visitsDone = Promise.all(
    sessions.map((session, i) =>
      visit(
        fleet.bffs[i % plan.processes]!.tokenUrl,
        session,
        startedAt + arrivalOffsetMs(i, plan.visitors, plan.spreadMs),
        plan,
        retryDelay,
        traffic,
        onSettled,
        end,
      ),
    ),
  );
  let visits: Visit[];
  try {
    visits = await visitsDone;
  } finally {
    clearInterval(sampler);
  }
  await sample();
  recordSeries({ key: `fleet ${fleet.name} calls`, unit: 'vendor calls since the first visit', points: calls });
  recordSeries({ key: `fleet ${fleet.name} 429`, unit: 'vendor 429s since the first visit', points: refused });
  const wallMs = Date.now() - startedAt;
  const after = await fleet.emulator.stats();
  const redisAfter = await redisCommandCount(fleet);
  const revalidations = budgeted ? (await fleetCounter(fleet, 'embed_bff_budget_used_total', { priority: 'revalidation' })) - revalidationsBefore : Number.NaN;
  return {
    summary: summarizeVisits(visits),
    calls: opsBetween(before.requests, after.requests),
    revalidations,
    rateLimited: after.rejected.rateLimited - before.rejected.rateLimited,
    probeCalls,
    traffic,
    wallMs,
    redisCommands: redisAfter - redisBefore,
    visits,
    sessions,
  };
}

/**
 * BFF CPU time and Redis commands per cached token request: `count` requests, 20 at a time, over
 * the customers served within the last half revalidation interval (their entries are fresh, so
 * every request is a cache hit), spread over the processes.
 */
async function cachedCosts(fleet: Fleet, run: FleetResult, plan: Plan, count: number) {
  const now = Date.now();
  const fresh = run.visits.flatMap((v, i) => (v.servedAt !== undefined && now - v.servedAt < (plan.revalidateAfterSeconds * 1000) / 2 ? [i] : []));
  if (fresh.length === 0) throw new Error('no customer was served recently enough to measure cached requests');
  const pids = fleet.bffs.map((bff) => bff.process.child.pid);
  const cpu = (): number => pids.reduce<number>((sum, pid) => sum + cpuSeconds(pid), 0);
  const traffic: Traffic = { requests: 0, returns: 0 };
  const cpuBefore = cpu();
  const redisBefore = await redisCommandCount(fleet);
  let next = 0;
  const failed: number[] = [];
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      for (let n = next++; n < count; n = next++) {
        const customer = fresh[n % fresh.length]!;
        const answer = await ask(fleet.bffs[(customer + n) % plan.processes]!.tokenUrl, run.sessions[customer]!, traffic);
        if (answer.status !== 200) failed.push(answer.status);
      }
    }),
  );
  const redisOps = (await redisCommandCount(fleet)) - redisBefore;
  const cpuMicros = ((cpu() - cpuBefore) * 1e6) / count;
  if (failed.length > 0) throw new Error(`${failed.length} of ${count} cached token requests failed (statuses ${[...new Set(failed)].join(', ')})`);
  return { cpuMicrosPerCachedRequest: cpuMicros, redisOpsPerCachedRequest: redisOps / count, customers: fresh.length };
}

/**
 * Vendor calls per returning customer whose entry the store no longer holds (it expires a day
 * after the last sync; on a Monday morning that is most customers): the store is emptied
 * (`FLUSHALL`), then `count` served customers ask again, retrying as the element does.
 */
async function expiredEntryCalls(fleet: Fleet, run: FleetResult, plan: Plan, retryDelay: RetryDelay, count: number) {
  const served = run.visits.flatMap((v, i) => (v.servedAt === undefined ? [] : [i])).slice(0, count);
  if (served.length < count) throw new Error(`only ${served.length} customers were served`);
  await redisCommand(fleet.redis.port, 'FLUSHALL');
  const before = await fleet.emulator.stats();
  const traffic: Traffic = { requests: 0, returns: 0 };
  const end: RunEnd = { ended: true, promise: Promise.resolve() };
  const visits = await Promise.all(
    served.map((customer, n) =>
      visit(fleet.bffs[(customer + 1 + n) % plan.processes]!.tokenUrl, run.sessions[customer]!, Date.now(), plan, retryDelay, traffic, () => {}, end),
    ),
  );
  const after = await fleet.emulator.stats();
  const missed = visits.filter((v) => v.servedAt === undefined).length;
  if (missed > 0) throw new Error(`${missed} of ${count} returning customers got no token`);
  const ops = opsBetween(before.requests, after.requests);
  return { ops, perCustomer: totalOps(ops) / count, rateLimited: after.rejected.rateLimited - before.rejected.rateLimited };
}

const timeSpread = (s: VisitSummary) => {
  const t = s.timesMs;
  return t.length === 0 ? 'n/a' : `min ${seconds(t[0]!)} / med ${seconds(s.p50Ms)} / max ${seconds(t[t.length - 1]!)} s`;
};
const split = (ops: VendorOps) => `${countValue(ops.getOrCreate)} get-or-create, ${countValue(ops.update)} update, ${countValue(ops.rotate)} rotate`;

/**
 * Row 7: a fleet at the vendor's limit. Two fleets side by side in the same run, each an emulator
 * enforcing the vendor's 180 calls a minute, a redis-server and 4 BFF CLI processes sharing it:
 * ours with the vendor budget (`EMBED_UPSTREAM_RATE=150`), the baseline as the BFF behaved
 * before it (`EMBED_UPSTREAM_RATE=0`). Each gets 1,000 first visits of new customers spread over
 * 60 s (quick: 20 over 2 s), retrying as the element does; served visitors keep coming back,
 * which revalidates their groups once the (shortened) interval has passed.
 */
export async function runFleet(quick: boolean): Promise<{ rows: Row[]; notes: string[] }> {
  const plan = quick ? QUICK : FULL;
  const stoppers: Array<() => Promise<void>> = [];
  try {
    const tool = redisServerTool();
    if (!tool.available) throw new NotAvailable('redis-server not installed');
    const retryDelay = await loadRetryDelay();
    const [ours, baseline] = await Promise.all([startFleet('budget', tool.path, BUDGET, plan, stoppers), startFleet('baseline', tool.path, 0, plan, stoppers)]);
    // Ours' cached requests are measured as soon as its visitors have settled, while the last
    // customers served are fresh (CPU time per request does not depend on what else runs).
    const measureOurs = async () => {
      const run = await runVisitors(ours, plan, true, retryDelay);
      progress(`ours settled in ${seconds(run.wallMs)} s`);
      const costs = await cachedCosts(ours, run, plan, plan.cachedRequests).catch((error: unknown) => error as Error);
      const expired = await expiredEntryCalls(ours, run, plan, retryDelay, plan.expiredCustomers).catch((error: unknown) => error as Error);
      return { run, costs, expired };
    };
    const measureBaseline = async () => {
      const run = await runVisitors(baseline, plan, false, retryDelay);
      progress(`baseline settled in ${seconds(run.wallMs)} s`);
      return run;
    };
    const [{ run: o, costs: measuredCosts, expired }, b] = await Promise.all([measureOurs(), measureBaseline()]);

    const firstVisitCalls: VendorOps = { ...o.calls, getOrCreate: o.calls.getOrCreate - o.revalidations };
    const perCustomer = ratio(totalOps(firstVisitCalls), plan.visitors);
    const firstVisitRequests = o.traffic.requests - o.traffic.returns;
    const cachedOps = measuredCosts instanceof Error ? Number.NaN : measuredCosts.redisOpsPerCachedRequest;
    const redisOpsPerNewCustomer = (o.redisCommands - o.traffic.returns * cachedOps) / plan.visitors;
    const setup =
      `${countValue(plan.visitors)} first visits over ${plan.spreadMs / 1000} s, ${plan.processes} BFF processes + Redis, vendor --rate-limit ${VENDOR_LIMIT}; ` +
      `ours EMBED_UPSTREAM_RATE=${BUDGET}, baseline 0; revalidation after ${plan.revalidateAfterSeconds} s`;
    const [a, calls, p50, p99, never, model, expiredRow] = ROWS;
    const rows: Row[] = [
      {
        id: a[0],
        metric: `${a[1]} (${setup})`,
        kind: a[2],
        ours: `${countValue(o.rateLimited)} (run ${seconds(o.wallMs)} s)`,
        baseline: `${countValue(b.rateLimited)} (run ${seconds(b.wallMs)} s)`,
        ratio: '',
        target: '0',
        result: o.rateLimited === 0 ? 'pass' : 'miss',
      },
      {
        id: calls[0],
        metric: `${calls[1]}; revalidations (the budget's metric) and the account's environment probe stated apart`,
        kind: calls[2],
        ours:
          `${countValue(totalOps(firstVisitCalls))} calls (${split(firstVisitCalls)}); besides: ${countValue(o.revalidations)} revalidations, ` +
          `probe ${o.probeCalls} calls once for the fleet`,
        baseline: `${countValue(totalOps(b.calls))} calls (${split(b.calls)}), revalidations included (no budget, no per-priority count); probe ${b.probeCalls}`,
        ratio: formatRatio(perCustomer),
        target: '= 1.00×',
        result: perCustomer === 1 ? 'pass' : 'miss',
      },
      {
        id: p50[0],
        metric: p50[1],
        kind: p50[2],
        ours: timeSpread(o.summary),
        baseline: timeSpread(b.summary),
        ratio: formatRatio(ratio(o.summary.p50Ms, b.summary.p50Ms)),
        target: 'info',
        result: quick ? 'not judged' : 'info',
      },
      {
        id: p99[0],
        metric: p99[1],
        kind: p99[2],
        ours: `p99 ${seconds(o.summary.p99Ms)} s`,
        baseline: `p99 ${seconds(b.summary.p99Ms)} s`,
        ratio: formatRatio(ratio(o.summary.p99Ms, b.summary.p99Ms)),
        target: 'info',
        result: quick ? 'not judged' : 'info',
      },
      {
        id: never[0],
        metric: `${never[1]} (a visitor gives up ${plan.giveUpMs / 60_000} min after arriving)`,
        kind: never[2],
        ours: `${countValue(o.summary.neverServed)} of ${countValue(plan.visitors)}`,
        baseline: `${countValue(b.summary.neverServed)} of ${countValue(plan.visitors)}`,
        ratio: '',
        target: '0',
        result: o.summary.neverServed === 0 ? 'pass' : 'miss',
      },
      measuredCosts instanceof Error
        ? unavailableRows([model], measuredCosts)[0]!
        : {
            id: model[0],
            metric: model[1],
            kind: model[2],
            ours:
              `${countValue(measuredCosts.cpuMicrosPerCachedRequest)} µs BFF CPU and ${measuredCosts.redisOpsPerCachedRequest.toFixed(1)} Redis commands per cached token request ` +
              `(${countValue(plan.cachedRequests)} requests over ${measuredCosts.customers} customers); ${redisOpsPerNewCustomer.toFixed(1)} Redis commands per new customer ` +
              `(${countValue(firstVisitRequests)} first-visit requests, retries included, ${countValue(o.traffic.returns)} returns)`,
            baseline: '',
            ratio: '',
            target: 'model input',
            result: 'info',
          },
      expired instanceof Error
        ? unavailableRows([expiredRow], expired)[0]!
        : {
            id: expiredRow[0],
            metric: expiredRow[1],
            kind: expiredRow[2],
            ours: `${countValue(totalOps(expired.ops))} calls for ${plan.expiredCustomers} (${split(expired.ops)}); vendor 429s ${expired.rateLimited}`,
            baseline: '',
            ratio: formatRatio(expired.perCustomer),
            target: 'model input',
            result: 'info',
          },
    ];
    if (measuredCosts instanceof Error || expired instanceof Error) return { rows, notes: [] };
    const measured: MeasuredCosts = {
      cpuMicrosPerCachedRequest: measuredCosts.cpuMicrosPerCachedRequest,
      redisOpsPerCachedRequest: measuredCosts.redisOpsPerCachedRequest,
      redisOpsPerNewCustomer,
      vendorCallsPerNewCustomer: perCustomer,
      vendorCallsPerExpiredCustomer: expired.perCustomer,
    };
    const notes = describeProjection(measured, { ...MILLION_CUSTOMERS, revalidateAfterSeconds: DEFAULT_REVALIDATE_AFTER_SECONDS });
    return { rows, notes: quick ? ['Quick run: a hundredth of the visitors, so the projection below is rough.', ...notes] : notes };
  } catch (error) {
    return { rows: unavailableRows(ROWS, error), notes: [] };
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}
