import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { createBffApp } from '../app.js';
import { createRedisStore } from '../store/redis/index.js';
import type { TokenStore } from '../store/types.js';
import { acme, API_TOKEN, call, captureLogs, FakeUpstream, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';

const tool = redisServerTool();

/**
 * The account's environment is learned once per vendor account, for every process sharing the
 * store: the marker one process writes must be one the others can read back through Redis (an
 * entry the codec refuses is a miss, and each process would probe again).
 */
describe.skipIf(!tool.available)('the account environment, shared through a real Redis', () => {
  let server: RedisServer;
  const stores: TokenStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer(tool.path);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close?.()));
    await server?.dispose();
  });

  const processOf = (upstream: FakeUpstream) => {
    const store = createRedisStore({ url: server.url });
    stores.push(store);
    return createBffApp({
      upstream,
      store,
      session: { secret: SESSION_SECRET },
      logger: captureLogs().logger,
      secrets: [API_TOKEN],
      rateLimit: false,
      expectEnvironment: 'Customer',
    });
  };

  it('is probed by the first process only; a second process pays one get-or-create per new customer', async () => {
    const upstream = new FakeUpstream();
    const [first, second] = [processOf(upstream), processOf(upstream)];
    expect((await call(first, '/embed/token', tokenRequest(await session()))).status).toBe(200);
    expect(upstream.calls).toEqual({ getOrCreate: 2, update: 1, rotate: 0 });

    const globex = await session({ ...acme, org_id: 'globex', org_name: 'Globex' });
    expect((await call(second, '/embed/token', tokenRequest(globex))).status).toBe(200);
    expect(upstream.calls).toEqual({ getOrCreate: 3, update: 1, rotate: 0 });
  });
});
