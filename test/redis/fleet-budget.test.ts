import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisCluster } from '../support/redis-cluster.js';
import { startRedisServer } from '../support/redis-server.js';
import { redisCliTool, redisServerTool } from '../support/tools.js';
import { groupNameOf, readiness, requestToken, sessionFor, startFleetOn, vendorStats, type Fleet, type FleetOptions, type TokenAnswer } from './fleet.js';

const server = redisServerTool();
const cli = redisCliTool();

/*
 * The "done when", on a compressed clock: the vendor's bucket (180, refilling 180 a
 * minute) and the BFF budget (150 a minute, burst 25) both run ten times as fast, so 300 new
 * customers take seconds instead of two minutes; the ratios between vendor, budget and burst
 * are the faithful ones. The bench row runs the faithful numbers.
 */
const CUSTOMERS = 300;
const VENDOR = ['--rate-limit', '1800', '--rate-limit-burst', '180'];
const BUDGET = { EMBED_UPSTREAM_RATE: '1500', EMBED_UPSTREAM_BURST: '25', EMBED_RATE_LIMIT: '0' };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** What the element does: ask, and on a retryable answer wait `Retry-After` (plus jitter), then ask again. */
async function tokenLikeTheElement(fleet: Fleet<unknown>, bff: number, session: string): Promise<TokenAnswer & { attempts: number }> {
  for (let attempts = 1; ; attempts++) {
    const answer = await requestToken(fleet.bffs[bff]!, session);
    if (answer.status === 200 || attempts === 40 || ![429, 502, 503, 504].includes(answer.status)) return { ...answer, attempts };
    await sleep((answer.retryAfter ?? 1) * 1000 + Math.random() * 500);
  }
}

async function firstVisits(fleet: Fleet<unknown>, prefix: string) {
  const orgs = Array.from({ length: CUSTOMERS }, (_, i) => `${prefix}-${i}`);
  const sessions = await Promise.all(orgs.map(sessionFor));
  const before = await vendorStats(fleet.emulator);
  const answers = await Promise.all(sessions.map((session, i) => tokenLikeTheElement(fleet, i % 2, session)));
  const after = await vendorStats(fleet.emulator);
  return {
    orgs,
    answers,
    vendor: {
      getOrCreate: after.requests.getOrCreate - before.requests.getOrCreate,
      update: after.requests.update - before.requests.update,
      rotate: after.requests.rotate - before.requests.rotate,
      rateLimited: after.rejected.rateLimited - before.rejected.rateLimited,
    },
  };
}

type Deployment = { env: Record<string, string>; dispose(): Promise<void> };
const deployments: Record<string, () => Promise<Deployment>> = {
  'one Redis': async () => {
    const redis = await startRedisServer(server.path);
    return { env: { EMBED_REDIS_URL: redis.url }, dispose: () => redis.dispose() };
  },
  'a 3-master Redis Cluster': async () => {
    const cluster = await startRedisCluster(server.path, cli.path);
    return { env: { EMBED_REDIS_URL: cluster.url, EMBED_REDIS_CLUSTER_NODES: cluster.nodes.slice(1).join(',') }, dispose: () => cluster.dispose() };
  },
};

async function startBudgetFleet(deployment: () => Promise<Deployment>, options: FleetOptions): Promise<Fleet<unknown>> {
  const redis = await deployment();
  const fleet = await startFleetOn<unknown>(undefined, redis.env, () => redis.dispose(), options);
  await vi.waitFor(async () => expect(await Promise.all(fleet.bffs.map(readiness))).toEqual([200, 200]), { timeout: 20_000, interval: 100 });
  return fleet;
}

describe.skipIf(!server.available || !cli.available).each(Object.keys(deployments))(
  `a burst of ${CUSTOMERS} new customers across two BFF processes sharing %s, the vendor limiting`,
  { timeout: 120_000 },
  (name) => {
    let fleet: Fleet<unknown>;
    beforeAll(async () => {
      fleet = await startBudgetFleet(deployments[name]!, { emulatorArgs: VENDOR, bffEnv: BUDGET });
    }, 60_000);
    afterAll(async () => {
      await fleet?.stop();
    });

    it('gets every customer its own token (retrying on 503 as the element does), with no 429 at the vendor and exactly one vendor call each', async () => {
      const { orgs, answers, vendor } = await firstVisits(fleet, 'burst');
      expect(answers.filter((a) => a.status !== 200).map((a) => a.status)).toEqual([]);
      expect(new Set(answers.map((a) => a.token)).size).toBe(CUSTOMERS);
      expect(vendor).toEqual({ getOrCreate: CUSTOMERS, update: 0, rotate: 0, rateLimited: 0 });
      // The budget made some of them wait and come back: it was the budget, not luck, that held.
      expect(answers.some((a) => a.attempts > 1)).toBe(true);
      for (const i of [0, 149, 299]) expect(await groupNameOf(fleet.emulator, answers[i]!.token!)).toBe(`Org ${orgs[i]}`);
    });
  },
);

describe.skipIf(!server.available)('the same burst without the budget (EMBED_UPSTREAM_RATE=0), against the vendor limit itself', { timeout: 120_000 }, () => {
  let fleet: Fleet<unknown>;
  beforeAll(async () => {
    fleet = await startBudgetFleet(deployments['one Redis']!, { emulatorArgs: ['--rate-limit', '180'], bffEnv: { ...BUDGET, EMBED_UPSTREAM_RATE: '0' } });
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
  });

  it('meets the vendor limit: 429s at the vendor, and customers refused', async () => {
    const orgs = Array.from({ length: CUSTOMERS }, (_, i) => `unbudgeted-${i}`);
    const sessions = await Promise.all(orgs.map(sessionFor));
    const answers = await Promise.all(sessions.map((session, i) => requestToken(fleet.bffs[i % 2]!, session)));
    const stats = await vendorStats(fleet.emulator);
    expect(stats.rejected.rateLimited).toBeGreaterThan(0);
    expect(answers.filter((a) => a.status !== 200).length).toBeGreaterThan(0);
  });
});
