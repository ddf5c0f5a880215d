import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisSentinelGroup } from '../../support/redis-cluster.js';
import { redisCliTool, redisServerTool } from '../../support/tools.js';
import { sentinelFailover, sentinelFleet, STORE_AWAY, type ChaosFleet } from './faults.js';
import { promisesBroken } from './load.js';

const server = redisServerTool();
const cli = redisCliTool();

/*
 * The fleet under faults (issue 23) behind Redis Sentinel: a master, a replica and three
 * sentinels; two BFF CLI processes that ask the sentinels for the master; the master killed
 * (kill -9) under a steady load, the replica promoted, the old master back as its replica.
 */
export function sentinelFaults(): void {
  describe.skipIf(!server.available || !cli.available)('the fleet under faults behind Redis Sentinel', { timeout: 60_000, concurrent: true }, () => {
    let chaos: ChaosFleet<RedisSentinelGroup>;

    beforeAll(async () => {
      chaos = await sentinelFleet(server.path, cli.path);
    }, 60_000);
    afterAll(async () => {
      await chaos?.stop();
    });
    // The failover starts from a group every sentinel of which can lead it, and ready processes.
    beforeEach(async () => {
      await chaos.fleet.redis.waitUntilReady();
      await chaos.waitUntilReady();
    }, 60_000);

    it.sequential('keeps its promises while the master is killed (kill -9) and Sentinel promotes its replica', async () => {
      // While the master is away (about 2 s), a customer whose entry the asked process has no copy of costs a get-or-create.
      const result = await chaos.scenario('Sentinel failover (kill -9 of the master)', () => sentinelFailover(chaos.fleet.redis), STORE_AWAY);
      expect(promisesBroken(result)).toEqual([]);
    });
  });
}
