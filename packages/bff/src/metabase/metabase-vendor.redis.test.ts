import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { createBffApp } from '../app.js';
import { createRedisStore } from '../store/redis/index.js';
import type { TokenStore } from '../store/types.js';
import { acme, call, captureLogs, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { metabaseVendor } from './metabase-vendor.js';

const tool = redisServerTool();
const SECRET = 'ab'.repeat(32);

/** Metabase tokens are the fleet's: what one BFF process signs and stores, another reads back through Redis and answers. */
describe.skipIf(!tool.available)('Metabase guest-embed tokens shared by BFF processes through a real Redis', () => {
  let server: RedisServer;
  const stores: TokenStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer(tool.path);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.dispose();
  });

  it('one token per customer and dashboard for the fleet, until shortly before its exp', async () => {
    let clock = Date.now();
    const keyPrefix = `metabase-fleet-${Math.random().toString(36).slice(2)}:`;
    const makeApp = () => {
      const store = createRedisStore({ url: server.url });
      stores.push(store);
      return createBffApp({
        store,
        keyPrefix,
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        rateLimit: false,
        now: () => clock,
        vendor: metabaseVendor({ secret: SECRET, params: { customer_id: '{org_id}' }, dashboards: [1], ttlSeconds: 600 }),
      });
    };
    const one = makeApp();
    const two = makeApp();
    const ask = async (app: typeof one) =>
      ((await call(app, '/embed/token', tokenRequest(await session(acme), { dashboard: '1' }))).body as { token: string }).token;
    const first = await ask(one);
    expect(await ask(two)).toBe(first);
    expect(decodeJwt(first).params).toEqual({ customer_id: ['acme'] });
    // With less than a quarter of its ten minutes left, the next view gets a fresh one, which the other process then serves.
    clock += 460_000;
    const next = await ask(two);
    expect(next).not.toBe(first);
    expect(await ask(one)).toBe(next);
  });
});
