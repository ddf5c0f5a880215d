import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeJwt } from 'jose';
import { SupersetClient } from '@embedded-dashboard/client/superset';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { createBffApp } from '../app.js';
import { createRedisStore } from '../store/redis/index.js';
import type { TokenStore } from '../store/types.js';
import { call, captureLogs, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { startHostileSuperset, SUPERSET_PASSWORD, SUPERSET_USER, type HostileSuperset } from '../../../client/test/support/hostile-superset.js';
import { supersetVendor } from './superset-vendor.js';

const tool = redisServerTool();
const DASHBOARD = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';
const ACCESS_TTL = 900;
const GUEST_TTL = 300;

/**
 * The service account's sign-in and the guest tokens are the fleet's, through the store: what one
 * process stores reads back in another through Redis's codec, the locks hold across processes,
 * and each is renewed once, near its own `exp`, by one process.
 */
describe.skipIf(!tool.available)('Superset guest tokens shared by BFF processes through a real Redis', () => {
  let server: RedisServer;
  let superset: HostileSuperset;
  let clock = Math.floor(Date.now() / 1000) * 1000;
  const stores: TokenStore[] = [];
  beforeAll(async () => {
    server = await startRedisServer(tool.path);
    superset = await startHostileSuperset({ dashboards: [DASHBOARD], accessTtlSeconds: ACCESS_TTL, guestTtlSeconds: GUEST_TTL, now: () => clock });
  });
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await superset?.close();
    await server?.dispose();
  });

  const fleet = (size: number) => {
    const keyPrefix = `superset-fleet-${Math.random().toString(36).slice(2)}:`;
    return Array.from({ length: size }, () => {
      const store = createRedisStore({ url: server.url });
      stores.push(store);
      return createBffApp({
        store,
        keyPrefix,
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        rateLimit: false,
        now: () => clock,
        vendor: supersetVendor({
          dashboards: [DASHBOARD],
          rls: 'customer_id = {org_id}',
          client: new SupersetClient({ baseUrl: superset.url, username: SUPERSET_USER, password: SUPERSET_PASSWORD, now: () => clock }),
        }),
      });
    });
  };

  it('one sign-in and one guest token for the fleet; the guest token renewed once near its exp, the sign-in near its own', async () => {
    const processes = fleet(3);
    const ask = async (i: number, org_id = 'acme') => {
      const res = await call(processes[i % processes.length]!, '/embed/token', tokenRequest(await session({ org_id }), { dashboard: DASHBOARD }));
      expect(res.status).toBe(200);
      return res.body as { token: string; expiresAt: number };
    };
    const start = { ...superset.calls };
    const signedInAt = clock;
    const first = await ask(0);
    const served = await Promise.all(Array.from({ length: 12 }, (_, i) => ask(i)));
    expect(new Set(served.map((a) => a.token))).toEqual(new Set([first.token]));
    expect(first.expiresAt).toBe(decodeJwt(first.token).exp! * 1000);
    expect(superset.calls.login - start.login).toBe(1);
    expect(superset.calls.guest - start.guest).toBe(1);

    // Inside the reuse window the stored token is still the answer...
    clock += (GUEST_TTL - 120) * 1000;
    expect((await ask(1)).token).toBe(first.token);
    expect(superset.calls.guest - start.guest).toBe(1);
    // ...past it, one process mints the next one for everybody.
    clock += 40_000;
    const renewed = await Promise.all(Array.from({ length: 9 }, (_, i) => ask(i)));
    expect(new Set(renewed.map((a) => a.token)).size).toBe(1);
    expect(renewed[0]!.token).not.toBe(first.token);
    expect(superset.calls.guest - start.guest).toBe(2);
    expect(superset.calls.login - start.login).toBe(1);

    // Under a minute from the access token's exp the fleet signs in again, once.
    clock = signedInAt + (ACCESS_TTL - 50) * 1000;
    await Promise.all(Array.from({ length: 6 }, (_, i) => ask(i, `customer-${i}`)));
    expect(superset.calls.login - start.login).toBe(2);
    expect(superset.calls.csrf - start.csrf).toBe(2);
    expect(superset.calls.guest - start.guest).toBe(8);
  });
});
