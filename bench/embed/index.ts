import { tokenUrl, startBff } from '../lib/bff.js';
import { BENCH_EMBED_SECRET, startEmulator } from '../lib/emulator.js';
import { formatRatio, formatSpread, msValue } from '../lib/format.js';
import { unavailableRows, type Row } from '../lib/row.js';
import { signSession, tokenRequestHeaders } from '../lib/session.js';
import { percentile, ratio } from '../lib/stats.js';

const CALLS = [
  '10a',
  'vendor calls per 1,000 page views of synced customers: embed tokens (minted in the BFF; minted by the vendor, shared) beside customer tokens',
  'fixed target',
] as const;
const LATENCY = [
  '10b',
  'token route latency p50 / p99: embed tokens (a JWE minted per request; the vendor-minted one from the store) vs customer tokens (from the store), same run',
  'ratio (same run)',
] as const;

const DASHBOARDS = ['sales-overview', 'support-metrics'];
const CONCURRENCY = 10;
const PER_ROUND = 100;

const MODES = ['customer', 'local', 'vendor'] as const;
type Mode = (typeof MODES)[number];

/** What each mode's BFF CLI adds to the bench's environment. */
const MODE_ENV: Record<Mode, Record<string, string>> = {
  customer: {},
  local: { EMBED_JWT_KEY_ID: BENCH_EMBED_SECRET.id, EMBED_JWT_KEY: BENCH_EMBED_SECRET.value },
  // The vendor's generate_jwt is on its Customer API, which states no environment: the check is off.
  vendor: { EMBED_JWT_KEY_ID: BENCH_EMBED_SECRET.id, EMBED_JWT_MINT: 'vendor', EMBED_UPSTREAM_API: 'explo-customer', EMBED_EXPECT_ENVIRONMENT: '' },
};

/**
 * Rows 10a and 10b: what a page view costs once a customer is synced, per kind of token. Three BFF
 * CLIs against one emulator: customer tokens; embed tokens minted in the BFF (`EMBED_JWT_KEY_ID`,
 * `EMBED_JWT_KEY`); embed tokens minted by the vendor (`EMBED_JWT_MINT=vendor`, its
 * `generate_jwt`). G customers are synced through each first (their get-or-create, and with the
 * vendor mint a token per dashboard: not counted); then page views (a token request naming a
 * dashboard, from the customer's session, CONCURRENCY at a time) go to the three BFFs in rounds
 * whose order rotates, the vendor's calls counted per round from the emulator's stats and each
 * request timed from the client.
 */
export async function runEmbed(quick: boolean): Promise<Row[]> {
  const customers = quick ? 3 : 20;
  const rounds = quick ? 1 : 12;
  const perRound = quick ? 30 : PER_ROUND;
  const stoppers: Array<() => Promise<void>> = [];
  try {
    const emulator = await startEmulator('embed-emulator');
    stoppers.push(emulator.stop);
    const start = (mode: Mode) =>
      startBff({
        upstreamUrl: emulator.url,
        logName: `embed-bff-${mode}`,
        // One session per customer sends many page views: the per-session limit never answers 429 here.
        env: { EMBED_RATE_LIMIT: '0', ...MODE_ENV[mode] },
      });
    const [customer, local, vendor] = await Promise.all([start('customer'), start('local'), start('vendor')]);
    const bffs = { customer, local, vendor };
    for (const bff of Object.values(bffs)) stoppers.push(() => bff.stop());

    const sessions = await Promise.all(Array.from({ length: customers }, (_, index) => signSession(`embed-bench-${index}`)));
    const view = async (mode: Mode, index: number): Promise<number> => {
      const started = performance.now();
      const answer = await fetch(tokenUrl(bffs[mode].url), {
        method: 'POST',
        headers: tokenRequestHeaders(sessions[index % customers]!),
        body: JSON.stringify({ dashboard: DASHBOARDS[Math.floor(index / customers) % DASHBOARDS.length] }),
      });
      const body = (await answer.json()) as { token?: unknown };
      if (answer.status !== 200 || typeof body.token !== 'string')
        throw new Error(`${mode} token request answered ${answer.status} (see bench/.tmp/embed-bff-${mode}.log)`);
      return performance.now() - started;
    };
    // Sync every customer through each BFF, each dashboard once (not counted below).
    for (const mode of MODES) await Promise.all(Array.from({ length: customers * DASHBOARDS.length }, (_, index) => view(mode, index)));

    const latency: Record<Mode, number[]> = { customer: [], local: [], vendor: [] };
    const calls: Record<Mode, number> = { customer: 0, local: 0, vendor: 0 };
    const vendorCalls = async () => {
      const { requests } = await emulator.stats();
      return requests.getOrCreate + requests.update + requests.rotate + requests.generateJwt;
    };
    for (let round = 0; round < rounds; round++) {
      for (let turn = 0; turn < MODES.length; turn++) {
        const mode = MODES[(round + turn) % MODES.length]!;
        const before = await vendorCalls();
        let next = 0;
        await Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            while (next < perRound) latency[mode].push(await view(mode, round * perRound + next++));
          }),
        );
        calls[mode] += (await vendorCalls()) - before;
      }
    }
    const views = rounds * perRound;
    const per1000 = (mode: Mode) => `${(calls[mode] * 1000) / views} per 1,000 (${calls[mode]} calls)`;
    const p = (mode: Mode, q: number) => percentile(latency[mode], q);
    const figures = (mode: Mode) => `p50 ${msValue(p(mode, 50))} ms, p99 ${msValue(p(mode, 99))} ms (${formatSpread(latency[mode], msValue, 'ms')})`;
    const ratios = (mode: Mode) => `${formatRatio(ratio(p(mode, 50), p('customer', 50)))} p50, ${formatRatio(ratio(p(mode, 99), p('customer', 99)))} p99`;
    return [
      {
        id: CALLS[0],
        metric: `${CALLS[1]} (${views} page views per mode over ${customers} synced customers and ${DASHBOARDS.length} dashboards, ${CONCURRENCY} at a time, rounds rotating)`,
        kind: CALLS[2],
        ours: `embed tokens minted in the BFF: ${per1000('local')}; minted by the vendor: ${per1000('vendor')}`,
        baseline: `customer tokens: ${per1000('customer')}`,
        ratio: '',
        target: '0',
        result: calls.local === 0 && calls.vendor === 0 ? 'pass' : 'miss',
      },
      {
        id: LATENCY[0],
        metric: `${LATENCY[1]} (client-side, ${views} requests each)`,
        kind: LATENCY[2],
        ours: `minted in the BFF ${figures('local')}; by the vendor ${figures('vendor')}`,
        baseline: `customer tokens ${figures('customer')}`,
        ratio: `in the BFF ${ratios('local')}; by the vendor ${ratios('vendor')}`,
        target: '',
        result: 'info',
      },
    ];
  } catch (error) {
    return unavailableRows([CALLS, LATENCY], error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}
