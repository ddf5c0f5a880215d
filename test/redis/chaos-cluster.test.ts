import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisCluster, type RedisCluster } from '../support/redis-cluster.js';
import type { RunningProcess } from '../support/processes.js';
import { redisCliTool, redisServerTool } from '../support/tools.js';
import { ChaosLoad, runScenario, type Allowance, type LoadRates } from './chaos-load.js';
import { emulatorStats, readiness, requestRotation, requestToken, setFaults, startFleetOn, vendorView, type Fleet } from './fleet.js';

const server = redisServerTool();
const cli = redisCliTool();

/** Small and steady: about 1.5 vendor calls a second, under the default budget (2.5 a second) and the vendor's 180 a minute. */
const RATES: LoadRates = { newCustomers: 1, returning: 8, rotations: 0.5 };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/*
 * The fleet under faults (issue 23; ARCHITECTURE §4 "The fleet under faults"), on a real Redis
 * Cluster of three masters with a replica each: two BFF CLI processes, the emulator CLI with the
 * vendor's limit (180 a minute) and the BFF's default budget (150), a steady load of new and
 * returning customers and rotations while each fault happens; every answer is checked against
 * the vendor. The scenarios share the cluster and the fleet, one after the other.
 */
describe.skipIf(!server.available || !cli.available)('the fleet under faults on a Redis Cluster with replicas', { timeout: 120_000 }, () => {
  let fleet: Fleet<RedisCluster>;
  let load: ChaosLoad;
  /** The BFF processes serving now (a killed one is replaced). */
  const serving: RunningProcess[] = [];

  beforeAll(async () => {
    const cluster = await startRedisCluster(server.path, cli.path, 3, { replicas: 1 });
    // Every node, replicas included, as seeds: whichever masters are left, the BFFs find the cluster.
    const seeds = [...cluster.masters, ...cluster.replicas].map((node) => `127.0.0.1:${node.port}`);
    fleet = await startFleetOn(cluster, { EMBED_REDIS_URL: cluster.url, EMBED_REDIS_CLUSTER_NODES: seeds.join(',') }, () => cluster.dispose(), {
      emulatorArgs: ['--rate-limit', '180'],
      bffEnv: { EMBED_UPSTREAM_RATE: '150', EMBED_METRICS_PORT: '0' },
    });
    serving.push(...fleet.bffs);
    await vi.waitFor(async () => expect(await Promise.all(serving.map(readiness))).toEqual([200, 200]), { timeout: 20_000, interval: 100 });
    load = new ChaosLoad(() => serving, fleet.emulator, 'cluster');
    await load.warmUp(20);
  }, 90_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  const masterPorts = async () => (await fleet.redis.topology()).filter((n) => n.role === 'master' && n.slots > 0).map((n) => n.port);

  const scenario = (name: string, fault: () => Promise<string | void>, allow?: Allowance) =>
    runScenario({ load, emulator: fleet.emulator, serving, storePorts: masterPorts, rates: RATES }, name, fault, allow);

  it('keeps its promises while slots migrate between masters (reshard, a hot slot held half-moved, rebalance)', async () => {
    const redirectionsBefore = await fleet.redis.redirections();
    await scenario('slots migrate (reshard, ASK, rebalance)', async () => {
      const masters = await masterPorts();
      await fleet.redis.reshard(masters[0]!, masters[1]!, 1_500);
      // The vendor budget's key: every vendor call runs a Lua script on it. Moved to a master that does not hold it.
      const { key: budgetKey, port: owner } = await findKey(masters, '*budget:*');
      await fleet.redis.migrateSlotOf(budgetKey, masters.find((port) => port !== owner)!, 2_000);
      await fleet.redis.rebalance();
      const after = await fleet.redis.redirections();
      const ask = after.ask - redirectionsBefore.ask;
      const moved = after.moved - redirectionsBefore.moved;
      // The fault did what it says: clients were redirected both ways.
      expect(ask).toBeGreaterThan(0);
      expect(moved).toBeGreaterThan(0);
      return `redirections: ASK ${ask}, MOVED ${moved}`;
    });
  });

  it('keeps its promises while a master hands over to its replica (CLUSTER FAILOVER)', async () => {
    await scenario('CLUSTER FAILOVER', async () => {
      const nodes = await fleet.redis.topology();
      const master = nodes.find((n) => n.role === 'master' && n.slots > 0)!;
      const replica = nodes.find((n) => n.masterOf === master.id)!;
      await fleet.redis.failover(replica.port);
      await fleet.redis.waitUntilHealthy();
    });
  });

  it('keeps its promises while a master is killed (kill -9) and its replica takes over', async () => {
    // While the master is away (about 2 s) a customer whose entry the asked process has no copy
    // of costs a get-or-create: the store cannot say what it holds, and the BFF answers rather
    // than waits (a failover takes 15-30 s with production timeouts).
    await scenario(
      'kill -9 of a master',
      async () => {
        const nodes = await fleet.redis.topology();
        const master = nodes.find((n) => n.role === 'master' && n.slots > 0 && nodes.some((r) => r.masterOf === n.id))!;
        const victim = [...fleet.redis.masters, ...fleet.redis.replicas].find((node) => node.port === master.port)!;
        await victim.kill();
        await fleet.redis.waitUntilHealthy();
        // Back as a replica of the node that took its slots.
        await victim.start();
        await fleet.redis.waitUntilHealthy();
      },
      { forced: 'one per group per process' },
    );
  });

  it('finishes a rotation on another process when the process holding its lock is killed mid-rotation (kill -9)', async () => {
    const [victim, survivor] = [serving[0]!, serving[1]!];
    const customer = load.customers.find((c) => c.token !== undefined && !c.busy)!;
    customer.busy = true;
    const held = customer.token!;
    let served: { ms: number; token: string } | undefined;
    const result = await scenario(
      'kill -9 of a BFF mid-rotation',
      async () => {
        // The vendor takes 2 s over every rotation: the victim holds the group's lock meanwhile.
        await setFaults(fleet.emulator, { latencyMs: 2_000, operations: ['rotate'] });
        const rotatesBefore = (await emulatorStats(fleet.emulator)).rotate;
        const inFlight = requestRotation(victim, customer.session, held).catch(() => undefined);
        await vi.waitFor(async () => expect((await emulatorStats(fleet.emulator)).rotate).toBe(rotatesBefore + 1), { timeout: 10_000, interval: 20 });
        // Frozen while the vendor rotates: the vendor's answer is never read, the new token never stored.
        victim.child.kill('SIGSTOP');
        await vi.waitFor(async () => expect((await vendorView(fleet.emulator, held)).alive).toBe(false), { timeout: 10_000, interval: 50 });
        victim.child.kill('SIGKILL');
        await inFlight;
        await setFaults(fleet.emulator, {});
        serving.splice(serving.indexOf(victim), 1, await fleet.addBff());
        // The customer's dashboard now refuses its token: its element rotates it, through a process that lives.
        const since = Date.now();
        for (let attempt = 0; served === undefined && Date.now() - since < 30_000; attempt++) {
          const answer = await requestRotation(survivor, customer.session, held);
          if (answer.status === 200 && answer.token !== undefined && (await vendorView(fleet.emulator, answer.token)).alive) {
            served = { ms: Date.now() - since, token: answer.token };
          } else {
            await sleep(Math.min(answer.retryAfter ?? 1, 3) * 1000);
          }
        }
        customer.token = served?.token ?? customer.token;
        return `rotation finished by another process after ${served === undefined ? 'never' : `${(served.ms / 1000).toFixed(1)} s`}`;
      },
      // The rotation the killed process made at the vendor is lost with it; the next rotation of
      // the dead token is refused by the vendor and repaired with one get-or-create.
      { forced: 1, rotateExtra: 2 },
    );
    customer.busy = false;
    expect(served, 'the rotation was finished by another process').toBeDefined();
    expect(served!.token).not.toBe(held);
    expect((await vendorView(fleet.emulator, served!.token)).name).toBe(`Org ${customer.org}`);
    expect((await requestToken(survivor, customer.session)).token).toBe(served!.token);
    expect(result.vendor.rotate).toBeGreaterThanOrEqual(1);
  });
});

/** The first key matching `pattern` on any of `ports`. */
async function findKey(ports: number[], pattern: string): Promise<{ key: string; port: number }> {
  for (const port of ports) {
    const redis = new Redis({ host: '127.0.0.1', port });
    try {
      for (let cursor = '0'; ; ) {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1_000);
        if (keys.length > 0) return { key: keys[0]!, port };
        cursor = next;
        if (cursor === '0') break;
      }
    } finally {
      redis.disconnect();
    }
  }
  throw new Error(`no key matches ${pattern}`);
}
