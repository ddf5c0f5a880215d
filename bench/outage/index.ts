import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve, type ServerType } from '@hono/node-server';
import { UserGroupClient } from '@embedded-dashboard/client';
import { createBffApp } from '@embedded-dashboard/bff';
import { EMULATOR_ADMIN_ROUTES, TOKEN_REQUEST_TIMEOUT_MS } from '@embedded-dashboard/protocol';
import { BENCH_API_KEY, startEmulator, type BenchEmulator } from '../lib/emulator.js';
import { countValue, formatRatio, formatSpread } from '../lib/format.js';
import { unavailableRows, type Row } from '../lib/row.js';
import { median, ratio } from '../lib/stats.js';
import { repoDir } from '../lib/paths.js';
import { SESSION, signSession, tokenRequestHeaders } from '../lib/session.js';

/** The element's own retry policy (full-jitter backoff, `Retry-After` when longer), from its build. */
type RetryDelay = (retry: number, retryAfterMs: number, random: () => number) => number;
const loadRetryDelay = async (): Promise<RetryDelay> =>
  ((await import(pathToFileURL(join(repoDir, 'packages/element/dist/token/backoff.js')).href)) as { retryDelay: RetryDelay }).retryDelay;

const ROW = ['6', 'vendor calls per minute during a vendor outage (every call answered 503), circuit breaker on ÷ off', 'ratio (same run)'] as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A BFF in this process (the library, so the breaker can be switched off) in front of `emulator`. */
async function startBff(emulator: BenchEmulator, circuitBreaker: boolean): Promise<{ url: string; stop(): Promise<void> }> {
  const client = new UserGroupClient({ baseUrl: emulator.url, apiToken: BENCH_API_KEY });
  const app = createBffApp({
    upstream: client,
    session: { secret: SESSION.secret, issuer: SESSION.issuer, audience: SESSION.audience },
    allowedOrigins: [SESSION.origin],
    rateLimit: false,
    logLevel: 'silent',
    secrets: [BENCH_API_KEY],
    ...(circuitBreaker ? {} : { circuitBreaker: false as const }),
  });
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/embed/token`,
    stop: async () => {
      await new Promise((resolve) => server.close(resolve));
      client.close();
    },
  };
}

/**
 * One visitor's element during the outage: asks for its first token and, failing, waits as the
 * element does (its backoff, or `Retry-After` when longer) and asks again, until `endAt`.
 */
async function visitor(url: string, session: string, endAt: number, retryDelay: RetryDelay): Promise<void> {
  for (let retry = 1; Date.now() < endAt; retry++) {
    let retryAfterMs = 0;
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: tokenRequestHeaders(session),
        body: '{}',
        signal: AbortSignal.timeout(TOKEN_REQUEST_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      if (response.ok) return;
      retryAfterMs = Number(response.headers.get('retry-after') ?? 0) * 1000 || 0;
    } catch {
      // The element's own timeout: retried like any transient failure.
    }
    await sleep(Math.min(retryDelay(retry, retryAfterMs, Math.random), Math.max(0, endAt - Date.now())));
  }
}

/** Vendor requests per minute in each window of `windowMs` while `visitors` retry through an outage of `durationMs`. */
async function outageRates(
  emulator: BenchEmulator,
  circuitBreaker: boolean,
  visitors: number,
  durationMs: number,
  windowMs: number,
  prefix: string,
): Promise<number[]> {
  const bff = await startBff(emulator, circuitBreaker);
  try {
    const sessions = await Promise.all(Array.from({ length: visitors }, (_, i) => signSession(`${prefix}-${i}`)));
    const total = async () => {
      const { requests } = await emulator.stats();
      return requests.getOrCreate + requests.update + requests.rotate;
    };
    const endAt = Date.now() + durationMs;
    const retryDelay = await loadRetryDelay();
    const crowd = Promise.all(sessions.map((session) => visitor(bff.url, session, endAt, retryDelay)));
    const rates: number[] = [];
    let last = await total();
    while (Date.now() < endAt) {
      await sleep(Math.min(windowMs, endAt - Date.now()));
      const now = await total();
      rates.push(((now - last) * 60_000) / windowMs);
      last = now;
    }
    await crowd;
    return rates;
  } finally {
    await bff.stop();
  }
}

/**
 * Row 6: a vendor outage of 60 s (4 s quick) with 200 active visitors (20 quick), each of
 * another customer, each element retrying as it does. Vendor calls per minute are sampled per
 * 10 s window (1 s quick), with the circuit breaker off (the baseline) and on, in the same run.
 */
export async function runOutage(quick: boolean): Promise<Row[]> {
  const visitors = quick ? 10 : 200;
  const durationMs = quick ? 2_000 : 60_000;
  const windowMs = quick ? 500 : 10_000;
  let emulator: BenchEmulator | undefined;
  try {
    emulator = await startEmulator('outage-emulator');
    const faults = await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.faults}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ serverErrorRate: 1 }),
    });
    if (!faults.ok) throw new Error(`emulator faults answered ${faults.status}`);
    const off = await outageRates(emulator, false, visitors, durationMs, windowMs, 'outage-off');
    const on = await outageRates(emulator, true, visitors, durationMs, windowMs, 'outage-on');
    const result = ratio(median(on), median(off));
    const perMinute = (values: number[]) => formatSpread(values, countValue, 'calls/min');
    return [
      {
        id: ROW[0],
        metric: `${ROW[1]} (${visitors} visitors, ${durationMs / 1000} s outage, per ${windowMs / 1000} s window)`,
        kind: ROW[2],
        ours: perMinute(on),
        baseline: perMinute(off),
        ratio: formatRatio(result),
        target: '≤ 0.10×',
        result: quick ? 'not judged' : result <= 0.1 ? 'pass' : 'miss',
      },
    ];
  } catch (error) {
    return unavailableRows([ROW], error);
  } finally {
    await emulator?.stop().catch(() => undefined);
  }
}
