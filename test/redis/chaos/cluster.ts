import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RedisCluster } from '../../support/redis-cluster.js';
import { redisCliTool, redisServerTool } from '../../support/tools.js';
import { requestToken, vendorView } from '../fleet.js';
import { clusterFailover, clusterFleet, KILLED_ROTATION, killBffMidRotation, killClusterMaster, slotsMigrate, STORE_AWAY, type ChaosFleet } from './faults.js';
import { promisesBroken } from './load.js';

const server = redisServerTool();
const cli = redisCliTool();

/*
 * The fleet under faults (issue 23; ARCHITECTURE §4 "The fleet under faults") on a real Redis
 * Cluster of three masters with a replica each: two BFF CLI processes, the emulator CLI with the
 * vendor's limit, the default vendor budget, a steady load of new and returning customers and
 * rotations while each fault happens, every answer checked against the vendor. Each scenario on a
 * fleet and cluster of its own, started and seen healthy before it (every master with a replica in
 * sync, every BFF process ready), so none depends on how the one before it left the cluster: in
 * the CI run of issue 40's second report, a manual failover right after the reshard scenario left
 * the promoted replica saying `cluster_state:fail` (16,383 slots in its view) for 30 s while every
 * other node said ok, and the next two scenarios met a cluster that could not become healthy. Each
 * prints its line of the chaos table.
 */
export function clusterFaults(): void {
  describe.skipIf(!server.available || !cli.available)('the fleet under faults on a Redis Cluster with replicas', { timeout: 90_000, concurrent: true }, () => {
    let chaos: ChaosFleet<RedisCluster>;

    beforeEach(async () => {
      chaos = await clusterFleet(server.path, cli.path);
    }, 90_000);
    afterEach(async () => {
      await chaos?.stop();
    });

    it.sequential(
      'keeps its promises while slots migrate between masters (reshard, a hot slot held half-moved, rebalance), Lua scripts redirected',
      async () => {
        let redirections = { ask: 0, moved: 0 };
        const result = await chaos.scenario('slots migrate (reshard, ASK, rebalance)', async () => {
          // 400 slots (the bench moves 1,500); the budget's slot held half-moved for 2 s as in the bench: the
          // load makes a vendor call (a Lua script on that slot) about every 0.7 s, and a 1 s hold met none
          // in one CI run (ASK 0).
          const migrated = await slotsMigrate(chaos.fleet.redis, { slots: 400, holdMs: 2_000 });
          redirections = migrated;
          return migrated.note;
        });
        expect(promisesBroken(result)).toEqual([]);
        // The fault did what it says: clients were redirected both ways.
        expect(redirections.ask).toBeGreaterThan(0);
        expect(redirections.moved).toBeGreaterThan(0);
      },
    );

    it.sequential('keeps its promises while a master hands over to its replica (CLUSTER FAILOVER)', async () => {
      expect(promisesBroken(await chaos.scenario('CLUSTER FAILOVER', () => clusterFailover(chaos.fleet.redis)))).toEqual([]);
    });

    it.sequential('keeps its promises while a master is killed (kill -9) and its replica takes over', async () => {
      // While the master is away (about 2 s) a customer whose entry the asked process has no copy
      // of costs a get-or-create: the store cannot say what it holds, and the BFF answers rather
      // than waits (a failover takes 15-30 s with production timeouts).
      expect(promisesBroken(await chaos.scenario('kill -9 of a master', () => killClusterMaster(chaos.fleet.redis), STORE_AWAY))).toEqual([]);
    });

    it.sequential('finishes a rotation on another process when the process holding its lock is killed mid-rotation (kill -9)', async () => {
      let killed: Awaited<ReturnType<typeof killBffMidRotation>> | undefined;
      const result = await chaos.scenario(
        'kill -9 of a BFF mid-rotation',
        async () => {
          killed = await killBffMidRotation(chaos);
          return killed.note;
        },
        KILLED_ROTATION,
      );
      expect(promisesBroken(result)).toEqual([]);
      const { served, held, customer } = killed!;
      expect(served, 'the rotation was finished by another process').toBeDefined();
      expect(served!.token).not.toBe(held);
      expect((await vendorView(chaos.fleet.emulator, served!.token)).name).toBe(`Org ${customer.org}`);
      for (const bff of chaos.serving) expect((await requestToken(bff, customer.session)).token).toBe(served!.token);
    });
  });
}
