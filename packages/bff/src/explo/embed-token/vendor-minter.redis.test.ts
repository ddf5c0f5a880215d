import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../../test/support/tools.js';
import { createBffApp } from '../../app.js';
import { createRedisStore } from '../../store/redis/index.js';
import type { TokenStore } from '../../store/types.js';
import { FakeJwtVendor } from '../../../test/support/fake-jwt-vendor.js';
import { API_TOKEN, call, captureLogs, deferred, session, SESSION_SECRET, tokenRequest } from '../../../test/support/fixtures.js';

const tool = redisServerTool();
const KEY_BYTES = new TextEncoder().encode('LEAKCHECK-redis-embed-key-32byte');
const TTL = 600;
const ORIGIN = 'http://localhost';

/**
 * Vendor-minted embed tokens are shared by the fleet through the store: what one process stores
 * must read back in another through Redis's codec, and the mint lock must hold across them.
 */
describe.skipIf(!tool.available)('vendor-minted embed tokens, shared by BFF processes through a real Redis', () => {
  let server: RedisServer;
  const stores: TokenStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer(tool.path);
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.dispose();
  });

  const fleet = (size: number) => {
    let clock = Math.floor(Date.now() / 1000) * 1000;
    const vendor = new FakeJwtVendor(KEY_BYTES, () => clock);
    const keyPrefix = `fleet-${Math.random().toString(36).slice(2)}:`;
    const processes = Array.from({ length: size }, () => {
      const store = createRedisStore({ url: server.url });
      stores.push(store);
      return createBffApp({
        upstream: vendor,
        store,
        keyPrefix,
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        secrets: [API_TOKEN],
        rateLimit: false,
        embedToken: { keyId: 'key-1', mint: 'vendor' },
        tokenTtlSeconds: TTL,
        now: () => clock,
      });
    });
    const ask = async (index: number) => {
      const res = await call(
        processes[index % size]!,
        `${ORIGIN}/embed/token`,
        tokenRequest(await session(), { dashboard: 'sales-overview' }, { origin: ORIGIN }),
      );
      expect(res.status).toBe(200);
      return (res.body as { token: string }).token;
    };
    return { vendor, ask, advance: (ms: number) => (clock += ms) };
  };

  it('mints once for the fleet, serves that token from every process, and mints the next one once near expiry', async () => {
    const { vendor, ask, advance } = fleet(3);
    const first = await ask(0);
    for (let i = 1; i <= 30; i++) expect(await ask(i)).toBe(first);
    expect(vendor.jwtCalls).toHaveLength(1);

    advance((TTL - 100) * 1000);
    const gate = deferred();
    vendor.jwtGate = gate.promise;
    const burst = Array.from({ length: 12 }, (_, i) => ask(i));
    await new Promise((resolve) => setTimeout(resolve, 200));
    gate.resolve();
    const next = new Set(await Promise.all(burst));
    expect(next.size).toBe(1);
    expect(next.has(first)).toBe(false);
    expect(vendor.jwtCalls).toHaveLength(2);
  });
});
