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

  it('is one budget for every store sharing the Redis, on the Redis clock', async () => {
    const [a, b] = [createRedisStore({ url: server.url }), createRedisStore({ url: server.url })];
    try {
      const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).reserveBudget('acct-1', request)));
      expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
      for (const d of decisions) if (!d.admitted) expect(d.retryAfterMs).toBeGreaterThan(0);
      // Another account has its own budget.
      expect(await a.reserveBudget('acct-2', request)).toEqual({ admitted: true, waitMs: 0 });
      // The state is a time on Redis's clock (TIME), not a caller's.
      const [seconds] = await raw.time();
      const tat = Number(await raw.get(redisKeys('embed:').budget('acct-1')));
      expect(Math.abs(tat - Number(seconds) * 1000)).toBeLessThan(60_000);
      expect(await raw.pttl(redisKeys('embed:').budget('acct-1'))).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('makes waiting callers wait their slot and pauses for a vendor Retry-After', async () => {
    const store = createRedisStore({ url: server.url });
    try {
      for (let i = 0; i < 5; i++) await store.reserveBudget('acct-3', request);
      const waiting = await store.reserveBudget('acct-3', { ...request, maxLatenessMs: 3000 });
      expect(waiting.admitted).toBe(true);
      expect(waiting.admitted && waiting.waitMs).toBeGreaterThan(0);
      expect(await store.reserveBudget('acct-4', { ...request, pauseMs: 20_000 })).toEqual({ admitted: false, retryAfterMs: 20_000 });
      const refused = await store.reserveBudget('acct-4', { ...request, maxLatenessMs: 3000 });
      expect(refused.admitted).toBe(false);
      expect(!refused.admitted && refused.retryAfterMs).toBeGreaterThan(15_000);
    } finally {
      await store.close();
    }
  });

  it('treats a foreign value under the key as an empty history', async () => {
    await raw.set(redisKeys('embed:').budget('acct-5'), 'not a number');
    const store = createRedisStore({ url: server.url });
    try {
      expect(await store.reserveBudget('acct-5', request)).toEqual({ admitted: true, waitMs: 0 });
    } finally {
      await store.close();
    }
  });
});
