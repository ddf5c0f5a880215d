import { EMULATOR_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { SAMPLE_SUPERSET_DASHBOARDS } from '@embedded-dashboard/emulator';
import { decodeJwt, jwtVerify } from 'jose';
import { startRedisServer } from '../../test/support/redis-server.js';
import { startSuperset, supersetFromEnv, supersetTool, SUPERSET_VERSION, type SupersetServer } from '../../test/support/superset.js';
import { redisServerTool } from '../../test/support/tools.js';
import { startBff, tokenUrl } from '../lib/bff.js';
import { packageBin } from '../lib/pieces.js';
import { startServerProcess, type BenchProcess } from '../lib/process.js';
import { passProgress } from '../lib/progress.js';
import { NotAvailable, unavailableRows, type Row } from '../lib/row.js';
import { signSession, tokenRequestHeaders } from '../lib/session.js';
import { GUEST_TOKEN_PATH, startCountingProxy, type VendorCall } from './counting-proxy.js';

const LOCAL = [
  '12a',
  'Superset, guest tokens signed by the BFF (EMBED_SUPERSET_GUEST_SECRET): vendor calls at startup and per page view',
  'fixed target',
] as const;
const MINTED = [
  '12b',
  'Superset, guest tokens minted by Superset (the service account): guest-token calls per customer and dashboard within a token lifetime, across a fleet sharing Redis',
  'fixed target',
] as const;

/** The vendor the rows count at: which one it is goes into the rows. */
interface Vendor {
  url: string;
  /** What the rows say it was. */
  description: string;
  dashboards: string[];
  serviceAccount: { username: string; password: string };
  guestToken: { secret: string; audience: string; lifetimeSeconds: number };
  stop(): Promise<void>;
}

/** The emulator's Superset mode takes a guest secret of the BFF's minimum length (32 bytes). */
const EMULATOR_GUEST = { secret: 'bench-superset-guest-secret-0123456789', audience: 'embedded-dashboard-bench', lifetimeSeconds: 300 };

/**
 * A real Superset when there is one: the one `EMBED_SUPERSET_MANIFEST` names (CI's, `npm run
 * superset`'s), or in a full run one of its own from the venv (test/support/superset.ts, about a
 * minute to start). Otherwise (a quick run without a running Superset, or no venv) the emulator's
 * Superset mode, whose answers test/superset/conformance.test.ts holds to the real server's.
 */
async function startVendor(quick: boolean): Promise<Vendor> {
  const fromManifest = (manifest: NonNullable<Awaited<ReturnType<typeof supersetFromEnv>>>, how: string, stop: () => Promise<void>): Vendor => ({
    url: manifest.url,
    description: `real Apache Superset ${manifest.version} (${how})`,
    dashboards: [manifest.dashboards.sales.uuid, manifest.dashboards.restricted.uuid],
    serviceAccount: manifest.serviceAccount,
    guestToken: manifest.guestToken,
    stop,
  });
  const running = await supersetFromEnv();
  if (running) return fromManifest(running, 'EMBED_SUPERSET_MANIFEST', async () => undefined);
  let tool: ReturnType<typeof supersetTool> | undefined;
  try {
    tool = quick ? undefined : supersetTool();
  } catch {
    tool = undefined;
  }
  if (tool?.available && tool.python) {
    const server: SupersetServer = await startSuperset(tool.python);
    return fromManifest(server.manifest, 'started by the bench from its venv', () => server.dispose());
  }
  const child: BenchProcess = await startServerProcess(
    packageBin('emulator', 'embedded-dashboard-emulator'),
    [
      ...['--vendor', 'superset', '--port', '0', '--host', '127.0.0.1'],
      ...['--guest-secret', EMULATOR_GUEST.secret, '--guest-audience', EMULATOR_GUEST.audience, '--guest-token-ttl', String(EMULATOR_GUEST.lifetimeSeconds)],
    ],
    { readyPrefix: EMULATOR_LISTENING_PREFIX, logName: 'superset-emulator' },
  );
  return {
    url: child.url.replace(/\/$/, ''),
    description: `the emulator's Superset mode (no Superset ${SUPERSET_VERSION} running${quick ? '; a quick run starts none' : ' and no venv'}: EMBED_SUPERSET_MANIFEST names one)`,
    dashboards: SAMPLE_SUPERSET_DASHBOARDS.map((dashboard) => dashboard.uuid),
    serviceAccount: { username: 'embed-service', password: 'embed-service-password' },
    guestToken: EMULATOR_GUEST,
    stop: () => child.stop(),
  };
}

interface Views {
  /** Every token handed out, by `<dashboard> <customer>`. */
  tokens: Map<string, Set<string>>;
  count: number;
}

/**
 * Every customer views every dashboard `perPair` times, the views spread round-robin over the
 * fleet's processes, `concurrency` at a time; each answer must be a token (200).
 */
async function view(bffUrls: readonly string[], customers: readonly string[], dashboards: readonly string[], perPair: number, label: string): Promise<Views> {
  const sessions = new Map(await Promise.all(customers.map(async (customer) => [customer, await signSession(customer)] as const)));
  const jobs = customers.flatMap((customer) => dashboards.flatMap((dashboard) => Array.from({ length: perPair }, () => ({ customer, dashboard }))));
  const tokens = new Map<string, Set<string>>();
  const progress = passProgress(`${label}: views`, jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: 10 }, async () => {
      while (next < jobs.length) {
        const index = next++;
        const { customer, dashboard } = jobs[index]!;
        const answer = await fetch(tokenUrl(bffUrls[index % bffUrls.length]!), {
          method: 'POST',
          headers: tokenRequestHeaders(sessions.get(customer)!),
          body: JSON.stringify({ dashboard }),
        });
        const body = (await answer.json().catch(() => ({}))) as { token?: unknown; error?: unknown };
        if (answer.status !== 200 || typeof body.token !== 'string') {
          throw new Error(
            `${label}: a token request answered ${answer.status} ${JSON.stringify(body.error ?? '').slice(0, 120)} (bench/.tmp/superset-${label}-*.log)`,
          );
        }
        const key = `${dashboard} ${customer}`;
        tokens.set(key, (tokens.get(key) ?? new Set()).add(body.token));
        progress.tick();
      }
    }),
  );
  return { tokens, count: jobs.length };
}

/** Each customer's token must name its dashboard and its own row-level security clause (and, signed locally, carry the server's secret and audience). */
async function checkTokens(views: Views, vendor: Vendor, verify: boolean): Promise<void> {
  for (const [key, tokens] of views.tokens) {
    const [dashboard, customer] = key.split(' ') as [string, string];
    for (const token of tokens) {
      const payload = verify
        ? (await jwtVerify(token, new TextEncoder().encode(vendor.guestToken.secret), { audience: vendor.guestToken.audience })).payload
        : decodeJwt(token);
      const resources = payload.resources as Array<{ id?: string }> | undefined;
      const rules = payload.rls_rules as Array<{ clause?: string }> | undefined;
      if (!resources?.some((resource) => resource.id === dashboard)) throw new Error(`a guest token for ${key} does not name its dashboard`);
      if (!rules?.some((rule) => rule.clause === `customer_id = '${customer}'`))
        throw new Error(`a guest token for ${key} lacks its customer's row-level security`);
    }
  }
}

const byPath = (calls: readonly VendorCall[]) => {
  const counts = new Map<string, number>();
  for (const call of calls) counts.set(`${call.method} ${call.path}`, (counts.get(`${call.method} ${call.path}`) ?? 0) + 1);
  return [...counts].map(([what, n]) => `${n} ${what}`).join(', ') || 'none';
};

/**
 * Rows 12a and 12b: what a page view of a Superset dashboard costs at Superset, counted at its
 * door (a counting proxy the BFFs reach it through), for a fleet of BFF CLI processes sharing a
 * real redis-server. 12a: guest tokens signed by the BFF, counted from before the processes start
 * (0 expected, startup included). 12b: guest tokens minted by Superset through the service
 * account: every view within one token lifetime, so at most one guest-token call per customer
 * and dashboard for the whole fleet; the service account's sign-in calls stated beside.
 */
export async function runSuperset(quick: boolean): Promise<Row[]> {
  const stoppers: Array<() => Promise<void>> = [];
  try {
    const redisTool = redisServerTool();
    if (!redisTool.available) throw new NotAvailable('redis-server not installed');
    const customers = Array.from({ length: quick ? 3 : 20 }, (_, i) => `superset-bench-${i}`);
    const processes = quick ? 2 : 3;
    const perPair = quick ? 3 : 10;
    const vendor = await startVendor(quick);
    stoppers.push(() => vendor.stop());
    const proxy = await startCountingProxy(vendor.url);
    stoppers.push(() => proxy.stop());
    const redis = await startRedisServer(redisTool.path);
    stoppers.push(() => redis.dispose());
    const fleet = async (label: string, env: Record<string, string>) => {
      const started = await Promise.all(
        Array.from({ length: processes }, (_, i) =>
          startBff({
            upstreamUrl: proxy.url,
            logName: `superset-${label}-${i + 1}`,
            redisUrl: redis.url,
            env: {
              EMBED_VENDOR: 'superset',
              EMBED_API_TOKEN: '',
              EMBED_EXPECT_ENVIRONMENT: '',
              EMBED_DASHBOARDS: vendor.dashboards.join(','),
              EMBED_SUPERSET_RLS: 'customer_id = {org_id}',
              EMBED_RATE_LIMIT: '0',
              ...env,
            },
          }),
        ),
      );
      for (const bff of started) stoppers.push(() => bff.stop());
      return started.map((bff) => bff.url);
    };
    const pairs = customers.length * vendor.dashboards.length;
    const setup = `${processes} BFF CLI processes sharing a redis-server, ${customers.length} customers × ${vendor.dashboards.length} dashboards × ${perPair} views, round-robin over the processes, 10 at a time; counted at the vendor's door (a counting proxy in front of ${vendor.description})`;

    // 12a: nothing may reach Superset, from the processes' start on.
    proxy.reset();
    const localUrls = await fleet('local', { EMBED_SUPERSET_GUEST_SECRET: vendor.guestToken.secret, EMBED_SUPERSET_AUDIENCE: vendor.guestToken.audience });
    const atStartup = proxy.calls().length;
    const local = await view(localUrls, customers, vendor.dashboards, perPair, 'local');
    const localCalls = proxy.calls();
    await checkTokens(local, vendor, true);

    // 12b: the vendor mints; the whole fleet asks once per customer and dashboard.
    proxy.reset();
    const mintUrls = await fleet('minted', {
      EMBED_SUPERSET_USERNAME: vendor.serviceAccount.username,
      EMBED_SUPERSET_PASSWORD: vendor.serviceAccount.password,
    });
    const mintStartup = proxy.calls().length;
    const started = performance.now();
    const minted = await view(mintUrls, customers, vendor.dashboards, perPair, 'minted');
    const spanSeconds = (performance.now() - started) / 1000;
    const mintCalls = proxy.calls();
    await checkTokens(minted, vendor, false);
    const guestCalls = mintCalls.filter((call) => call.method === 'POST' && call.path === GUEST_TOKEN_PATH);
    const perPairCalls = new Map<string, number>();
    for (const call of guestCalls) perPairCalls.set(call.pair ?? '?', (perPairCalls.get(call.pair ?? '?') ?? 0) + 1);
    const worst = Math.max(0, ...perPairCalls.values());
    const shared = [...minted.tokens.values()].every((tokens) => tokens.size === 1);
    const withinLifetime = spanSeconds < vendor.guestToken.lifetimeSeconds;

    return [
      {
        id: LOCAL[0],
        metric: `${LOCAL[1]} (${setup})`,
        kind: LOCAL[2],
        ours: `${atStartup} at startup, ${localCalls.length - atStartup} for ${local.count} views (${byPath(localCalls)}); every token verified with the server's secret and audience`,
        baseline: 'none (fixed target)',
        ratio: '',
        target: '0 and 0',
        result: localCalls.length === 0 ? 'pass' : 'miss',
      },
      {
        id: MINTED[0],
        metric: `${MINTED[1]} (${setup}; the views took ${spanSeconds.toFixed(1)} s, within the guest token's ${vendor.guestToken.lifetimeSeconds} s lifetime: ${withinLifetime ? 'yes' : 'NO'})`,
        kind: MINTED[2],
        ours: `${guestCalls.length} guest-token calls for ${pairs} customer-dashboard pairs (${(guestCalls.length / pairs).toFixed(2)} per pair, worst pair ${worst}) over ${minted.count} views; ${shared ? 'every view of a pair got the same token on every process' : 'some pair got two tokens'}; all vendor calls: ${byPath(mintCalls)} (${mintStartup} at startup)`,
        baseline: `${pairs} pairs (1 call each at most)`,
        ratio: (guestCalls.length / pairs).toFixed(2) + '×',
        target: '≤ 1 per pair (worst pair)',
        result: worst <= 1 && withinLifetime && guestCalls.length >= 1 ? 'pass' : 'miss',
      },
    ];
  } catch (error) {
    return unavailableRows([LOCAL, MINTED], error);
  } finally {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
  }
}
