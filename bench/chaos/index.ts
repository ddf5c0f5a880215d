import { BFF_REQUEST_DEADLINE_MS } from '@embedded-dashboard/protocol';
import { startRedisCluster, type RedisCluster } from '../../test/support/redis-cluster.js';
import { redisCliTool, redisServerTool } from '../../test/support/tools.js';
import { startFleetOn, type Fleet } from '../../test/redis/fleet.js';
import { coldBurst, type ColdBurst } from '../../test/redis/chaos/cold-burst.js';
import {
  clusterFailover,
  clusterFleet,
  flapRedis,
  FLAP_DEMAND_OF_THE_ISSUE,
  KILLED_ROTATION,
  killBffMidRotation,
  killClusterMaster,
  restartEmpty,
  sentinelFailover,
  sentinelFleet,
  singleFleet,
  slotsMigrate,
  STORE_AWAY,
  STORE_LOST,
} from '../../test/redis/chaos/faults.js';
import { promisesBroken, type ScenarioResult } from '../../test/redis/chaos/load.js';
import { countValue, formatMs, formatSpread } from '../lib/format.js';
import { NotAvailable, judgeTiming, unavailableRows, type Row, type RowKind } from '../lib/row.js';
import { percentile } from '../lib/stats.js';

const progress = (message: string) => process.stderr.write(`bench: 9. ${message}\n`);

/** The issue's cold burst: 40 new customers × 10 requests through 2 fresh BFF processes. */
const CUSTOMERS = 40;
const PER_CUSTOMER = 10;

const BURST_ROWS = [
  [
    '9a',
    `cluster cold burst (${CUSTOMERS} new customers × ${PER_CUSTOMER} requests, 2 fresh BFF processes, 3 masters + 3 replicas): 504 answers`,
    'fixed target',
  ],
  ['9b', "cluster cold burst: vendor calls beyond one per customer served (duplicates), and customers given two tokens or another's", 'fixed target'],
  ['9c', "cluster cold burst p99 (answers 200), budget not binding: the fleet's own work, no deliberate wait", 'fixed target'],
  ['9d', 'cluster cold burst p99 (answers 200) with the default budget (150/min, burst 25): the deliberate waits apart', 'fixed target'],
] as const;

const FAULT_ROWS = [
  ['9e', 'slots migrate (reshard, hot slot held half-moved: ASK on a Lua script, rebalance)'],
  ['9f', 'CLUSTER FAILOVER of a master to its replica'],
  ['9g', 'kill -9 of a cluster master, replica promoted'],
  ['9h', "kill -9 of a BFF holding a group's lock mid-rotation"],
  ['9i', 'Sentinel failover (kill -9 of the master)'],
  ['9j', 'Redis restarts empty (data lost)'],
  ['9k', 'Redis killed and restarted empty every second, demand beyond the budget'],
] as const;

interface Plan {
  /** Cold bursts per arm. */
  bursts: number;
  /** Whether the fault scenarios run (they are the chaos tests of `npm test`; the quick bench leaves them to it). */
  faults: boolean;
  /** New customers per burst, and requests per customer. */
  customers: number;
  perCustomer: number;
}
const FULL: Plan = { bursts: 20, faults: true, customers: CUSTOMERS, perCustomer: PER_CUSTOMER };
/** Quick (CI): one burst per arm, a quarter of the customers, 3 requests each: the same code, few requests. */
const QUICK: Plan = { bursts: 1, faults: false, customers: 10, perCustomer: 3 };

/**
 * Row 8, the fleet under chaos (issue 23): the cluster cold burst repeated (every run with fresh
 * BFF processes and a vendor account of their own, the budget not binding and the default budget
 * taking turns), then each fault of the chaos tests under a steady load, with its counts.
 */
export async function runChaos(quick: boolean): Promise<Row[]> {
  const plan = quick ? QUICK : FULL;
  const server = redisServerTool();
  const cli = redisCliTool();
  if (!server.available || !cli.available) {
    const error = new NotAvailable('redis-server and redis-cli are needed');
    return unavailableRows([...BURST_ROWS, ...faultIds(plan)], error);
  }
  const rows: Row[] = [];
  try {
    rows.push(...(await burstRows(plan, server.path, cli.path, quick)));
  } catch (error) {
    rows.push(...unavailableRows(BURST_ROWS, error));
  }
  if (plan.faults) rows.push(...(await faultRows(server.path, cli.path)));
  return rows;
}

const faultIds = (plan: Plan): Array<readonly [string, string, RowKind]> =>
  plan.faults ? FAULT_ROWS.map(([id, metric]) => [id, metric, 'fixed target'] as const) : [];

async function burstRows(plan: Plan, serverPath: string, cliPath: string, quick: boolean): Promise<Row[]> {
  const keys = Array.from({ length: plan.bursts }, (_, run) => ({ free: `burst-free-${run}-key`, budget: `burst-budget-${run}-key` }));
  const cluster = await startRedisCluster(serverPath, cliPath, 3, { replicas: 1 });
  const seeds = [...cluster.masters, ...cluster.replicas].map((node) => `127.0.0.1:${node.port}`).join(',');
  const apiKeys = ['dev-customer-key', ...keys.flatMap((k) => [k.free, k.budget])].flatMap((key) => ['--api-key', `${key}:Customer`]);
  const fleet: Fleet<RedisCluster> = await startFleetOn(cluster, { EMBED_REDIS_URL: cluster.url, EMBED_REDIS_CLUSTER_NODES: seeds }, () => cluster.dispose(), {
    emulatorArgs: ['--rate-limit', '180', ...apiKeys],
  });
  const free: ColdBurst[] = [];
  const budgeted: ColdBurst[] = [];
  try {
    for (const [run, key] of keys.entries()) {
      progress(`cold burst ${run + 1}/${plan.bursts}`);
      // The budget far above the burst: nobody waits. Then the CLI default, in the same conditions.
      free.push(await coldBurst(fleet, { EMBED_API_TOKEN: key.free, EMBED_UPSTREAM_RATE: '100000' }, `free-${run}`, plan.customers, plan.perCustomer));
      budgeted.push(await coldBurst(fleet, { EMBED_API_TOKEN: key.budget, EMBED_UPSTREAM_RATE: '150' }, `budget-${run}`, plan.customers, plan.perCustomer));
    }
  } finally {
    await fleet.stop();
  }
  const all = [...free, ...budgeted];
  const requests = all.length * plan.customers * plan.perCustomer;
  const count = (status: number, bursts = all) => bursts.reduce((sum, b) => sum + (b.statuses[status] ?? 0), 0);
  const duplicates = all.reduce((sum, b) => sum + b.vendor.getOrCreate + b.vendor.update - b.served, 0);
  const inconsistent = all.reduce((sum, b) => sum + b.inconsistent, 0);
  const localLocks = all.reduce((sum, b) => sum + b.localLocks, 0);
  const p99 = (bursts: ColdBurst[]) => bursts.map((b) => percentile(b.okMs, 99));
  const others = (bursts: ColdBurst[]) =>
    Object.entries(
      bursts.reduce<Record<string, number>>((acc, b) => {
        for (const [status, n] of Object.entries(b.statuses)) if (status !== '200') acc[status] = (acc[status] ?? 0) + n;
        return acc;
      }, {}),
    )
      .map(([status, n]) => `${countValue(n)} × ${status}`)
      .join(', ') || 'none';
  const runs = `${plan.bursts} runs of each`;
  const deadline = BFF_REQUEST_DEADLINE_MS;
  const freeP99 = p99(free);
  const budgetP99 = p99(budgeted);
  return [
    {
      id: '9a',
      metric: BURST_ROWS[0][1].replace(`${CUSTOMERS} new customers × ${PER_CUSTOMER}`, `${plan.customers} new customers × ${plan.perCustomer}`),
      kind: 'fixed target',
      ours: `${countValue(count(504))} of ${countValue(requests)} requests (${runs}: budget not binding, default budget)`,
      baseline: '',
      ratio: '',
      target: '0',
      result: count(504) === 0 ? 'pass' : 'miss',
    },
    {
      id: '9b',
      metric: BURST_ROWS[1][1],
      kind: 'fixed target',
      ours: `${countValue(duplicates)} duplicate calls for ${countValue(all.reduce((s, b) => s + b.served, 0))} customers served; ${inconsistent} customers with two tokens or another's; locks granted locally (store lost) ${countValue(localLocks)}`,
      baseline: '',
      ratio: '',
      target: '0 and 0',
      result: duplicates === 0 && inconsistent === 0 ? 'pass' : 'miss',
    },
    {
      id: '9c',
      metric: BURST_ROWS[2][1],
      kind: 'fixed target',
      ours: `${formatSpread(freeP99, formatMs, '')}over ${plan.bursts} runs; answers other than 200: ${others(free)}`,
      baseline: '',
      ratio: '',
      target: `< ${formatMs(deadline)} (the BFF's deadline)`,
      result: judgeTiming(Math.max(...freeP99) < deadline, quick),
    },
    {
      id: '9d',
      metric: BURST_ROWS[3][1],
      kind: 'fixed target',
      ours:
        `${formatSpread(budgetP99, formatMs, '')}over ${plan.bursts} runs; deliberate: ${countValue(budgeted.reduce((s, b) => s + b.budgetWaits, 0))} vendor calls waited for their slot (≤ 3 s), ` +
        `${countValue(count(503, budgeted))} × 503 with Retry-After (customers beyond the burst and 3 s of waiting); other answers: ${others(budgeted).replace(/\d[\d,]* × 503(, )?/, '') || 'none'}`,
      baseline: '',
      ratio: '',
      target: `< ${formatMs(deadline)}`,
      result: judgeTiming(Math.max(...budgetP99) < deadline, quick),
    },
  ];
}

async function faultRows(serverPath: string, cliPath: string): Promise<Row[]> {
  const rows: Row[] = [];
  const report = (line: string) => progress(line);
  const row = ([id, metric]: readonly [string, string], result: ScenarioResult): Row => {
    const broken = promisesBroken(result);
    const c = result.counts;
    const forced = result.vendor.getOrCreate - result.expected.getOrCreate;
    return {
      id,
      metric: `${metric}: promises under a steady load (2 BFF processes)`,
      kind: 'fixed target',
      ours:
        `${result.seconds.toFixed(1)} s, ${c.requests} requests: non-retryable 5xx ${c.nonRetryable}, retryable 5xx ${c.retryable}, retries not served ${c.retryNotServed}, ` +
        `foreign tokens ${c.foreign}, dead tokens served ${c.dead} (repaired ${c.deadRepaired}), vendor 429 ${result.vendor.rateLimited}, ` +
        `get-or-create +${forced} beyond new customers (forced by the fault, at most ${result.allowed.getOrCreate}), update ${result.vendor.update}, ` +
        `rotate ${result.vendor.rotate} for ${c.rotated} rotations and ${c.deadRepaired} repairs (at most ${result.allowed.rotate} more forced), rotated-away tokens in the store ${result.store.stale.length}` +
        (result.note ? `; ${result.note}` : ''),
      baseline: '',
      ratio: '',
      target: 'every promise kept',
      result: broken.length === 0 ? 'pass' : 'miss',
    };
  };
  const scenarios: Array<{ ids: ReadonlyArray<readonly [string, string]>; run: () => Promise<Row[]> }> = [
    {
      ids: FAULT_ROWS.slice(0, 4),
      run: async () => {
        const chaos = await clusterFleet(serverPath, cliPath, { report });
        try {
          return [
            row(FAULT_ROWS[0], await chaos.scenario(FAULT_ROWS[0][1], async () => (await slotsMigrate(chaos.fleet.redis)).note)),
            row(FAULT_ROWS[1], await chaos.scenario(FAULT_ROWS[1][1], () => clusterFailover(chaos.fleet.redis))),
            row(FAULT_ROWS[2], await chaos.scenario(FAULT_ROWS[2][1], () => killClusterMaster(chaos.fleet.redis), STORE_AWAY)),
            row(FAULT_ROWS[3], await chaos.scenario(FAULT_ROWS[3][1], async () => (await killBffMidRotation(chaos)).note, KILLED_ROTATION)),
          ];
        } finally {
          await chaos.stop();
        }
      },
    },
    {
      ids: FAULT_ROWS.slice(4, 5),
      run: async () => {
        const chaos = await sentinelFleet(serverPath, cliPath, { report });
        try {
          return [row(FAULT_ROWS[4], await chaos.scenario(FAULT_ROWS[4][1], () => sentinelFailover(chaos.fleet.redis), STORE_AWAY))];
        } finally {
          await chaos.stop();
        }
      },
    },
    {
      ids: FAULT_ROWS.slice(5),
      run: async () => {
        const chaos = await singleFleet(serverPath, { report });
        try {
          const lost = row(FAULT_ROWS[5], await chaos.scenario(FAULT_ROWS[5][1], () => restartEmpty(chaos.fleet.redis), STORE_LOST));
          const flapped = await flapRedis(chaos, 10_000, FLAP_DEMAND_OF_THE_ISSUE);
          const c = flapped.counts;
          const kept =
            c.nonRetryable === 0 &&
            c.foreign === 0 &&
            flapped.vendor.rateLimited === 0 &&
            flapped.calls <= flapped.budget + 5 &&
            c.notServedAtOnce.returning === 0;
          return [
            lost,
            {
              id: FAULT_ROWS[6][0],
              metric: `${FAULT_ROWS[6][1]}: vendor calls against the budget, cached customers served`,
              kind: 'fixed target',
              ours:
                `${flapped.restarts} restarts in ${flapped.seconds.toFixed(1)} s, ${countValue(c.requests)} requests (${(c.requests / flapped.seconds).toFixed(0)}/s; offered ${FLAP_DEMAND_OF_THE_ISSUE.newCustomers + FLAP_DEMAND_OF_THE_ISSUE.returning}/s, a customer's visits never overlap): ` +
                `${flapped.calls} vendor calls (the budget allows ${flapped.budget}), vendor 429 ${flapped.vendor.rateLimited}; ` +
                `returning customers not served at once ${c.notServedAtOnce.returning} of ${c.returning}; new customers refused by the budget ${c.notServedAtOnce.new} of ${c.created}; ` +
                `non-retryable 5xx ${c.nonRetryable}, foreign tokens ${c.foreign}`,
              baseline: 'before this row: 726 calls in 20 s, 51 % 503 for cached customers (issue 23)',
              ratio: '',
              target: '≤ budget, 0 for cached',
              result: kept ? 'pass' : 'miss',
            },
          ];
        } finally {
          await chaos.stop();
        }
      },
    },
  ];
  for (const { ids, run } of scenarios) {
    try {
      progress(`faults: ${ids.map(([, metric]) => metric).join('; ')}`);
      rows.push(...(await run()));
    } catch (error) {
      rows.push(
        ...unavailableRows(
          ids.map(([id, metric]) => [id, metric, 'fixed target'] as const),
          error,
        ),
      );
    }
  }
  return rows;
}
