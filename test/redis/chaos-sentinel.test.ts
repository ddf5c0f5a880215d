import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisSentinelGroup, type RedisSentinelGroup } from '../support/redis-cluster.js';
import type { RunningProcess } from '../support/processes.js';
import { redisCliTool, redisServerTool } from '../support/tools.js';
import { ChaosLoad, runScenario, type LoadRates } from './chaos-load.js';
import { readiness, startFleetOn, type Fleet } from './fleet.js';

const server = redisServerTool();
const cli = redisCliTool();

const RATES: LoadRates = { newCustomers: 1, returning: 8, rotations: 0.5 };

/*
 * The fleet under faults (issue 23) behind Redis Sentinel: a master, a replica and three
 * sentinels; two BFF CLI processes that ask the sentinels for the master; the master killed
 * (kill -9) under a steady load, the replica promoted, the old master back as its replica.
 */
describe.skipIf(!server.available || !cli.available)('the fleet under faults behind Redis Sentinel', { timeout: 90_000 }, () => {
  let fleet: Fleet<RedisSentinelGroup>;
  let load: ChaosLoad;
  const serving: RunningProcess[] = [];

  beforeAll(async () => {
    const group = await startRedisSentinelGroup(server.path, cli.path);
    fleet = await startFleetOn(
      group,
      { EMBED_REDIS_URL: 'redis://127.0.0.1:1', EMBED_REDIS_SENTINELS: group.sentinels.join(','), EMBED_REDIS_SENTINEL_MASTER: group.masterName },
      () => group.dispose(),
      { emulatorArgs: ['--rate-limit', '180'], bffEnv: { EMBED_UPSTREAM_RATE: '150', EMBED_METRICS_PORT: '0' } },
    );
    serving.push(...fleet.bffs);
    await vi.waitFor(async () => expect(await Promise.all(serving.map(readiness))).toEqual([200, 200]), { timeout: 20_000, interval: 100 });
    load = new ChaosLoad(() => serving, fleet.emulator, 'sentinel');
    await load.warmUp(20);
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('keeps its promises while the master is killed (kill -9) and Sentinel promotes its replica', async () => {
    const group = fleet.redis;
    await runScenario(
      { load, emulator: fleet.emulator, serving, storePorts: async () => [await group.currentMasterPort()], rates: RATES },
      'Sentinel failover (kill -9 of the master)',
      async () => {
        const since = Date.now();
        await group.master.kill();
        await vi.waitFor(async () => expect(await group.currentMasterPort()).toBe(group.replica.port), { timeout: 30_000, interval: 100 });
        const promotedAfter = Date.now() - since;
        // Back empty; the sentinels make it a replica of the promoted one.
        await group.master.start();
        return `replica promoted after ${(promotedAfter / 1000).toFixed(1)} s`;
      },
      // While the master is away (about 2 s) a customer whose entry the asked process has no copy
      // of costs a get-or-create: the store cannot say what it holds, and the BFF answers rather
      // than waits (a failover takes 15-30 s with production timeouts).
      { forced: 'one per group per process' },
    );
  });
});
