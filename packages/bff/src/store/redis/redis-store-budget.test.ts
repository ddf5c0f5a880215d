import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../../test/support/tools.js';
import { createRedisStore } from './index.js';
import { redisKeys } from './keys.js';

const tool = redisServerTool();

// One call a second, a bucket of 5 (wide enough that a slow shared machine cannot refill it mid-test).
const request = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

describe.skipIf(!tool.available)('the vendor budget in Redis (BUDGET_SCRIPT)', () => {
  let server: RedisServer;
  let raw: Redis;
  beforeAll(async () => {
    server = await startRedisServer(tool.path);
    raw = new Redis(server.url);
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.dispose();
  });

  // What every store's budget does is the store contract (test/support/store-contract/); this is how Redis keeps it.
  it('keeps the budget as a time on the Redis clock (TIME), not a caller’s, with an expiry', async () => {
    const store = createRedisStore({ url: server.url });
    try {
      for (let i = 0; i < 3; i++) await store.reserveBudget('acct-1', request);
      const [seconds] = await raw.time();
      const tat = Number(await raw.get(redisKeys('embed:').budget('acct-1')));
      expect(Math.abs(tat - Number(seconds) * 1000)).toBeLessThan(60_000);
      expect(await raw.pttl(redisKeys('embed:').budget('acct-1'))).toBeGreaterThan(0);
    } finally {
      await store.close();
    }
  });

  it('treats a foreign value under the key as an empty history', async () => {
    await raw.set(redisKeys('embed:').budget('acct-5'), 'not a number');
    const store = createRedisStore({ url: server.url });
    try {
      expect(await store.reserveBudget('acct-5', request)).toEqual({ admitted: true, waitMs: 0, aheadMs: request.intervalMs });
    } finally {
      await store.close();
    }
  });
});
