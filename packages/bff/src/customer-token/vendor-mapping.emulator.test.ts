import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXPLO_AUTH_HEADER, EXPLO_CUSTOMER_ROUTES } from '@embedded-dashboard/protocol';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import type { BffAppOptions } from '../options.js';
import { createRedisStore } from '../store/redis/index.js';
import type { TokenStore } from '../store/types.js';
import { acme, API_TOKEN, findLeaks, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { emulatorBffs } from '../../test/support/socket-bffs.js';

const TESTING_API_TOKEN = 'LEAKCHECK-testing-api-token-mapping-31a0';
const emu = emulatorBffs({ testingApiToken: TESTING_API_TOKEN, client: { api: 'explo-customer' } });
const redis = redisServerTool();
let server: RedisServer | undefined;
const stores: TokenStore[] = [];
beforeAll(async () => {
  if (redis.available) server = await startRedisServer(redis.path);
});
afterAll(async () => {
  await Promise.all(stores.map((s) => s.close?.()));
  await server?.dispose();
  expect(findLeaks()).toEqual([]);
});

/** A Customer API call made straight to the emulator, as the vendor's UI or another tool would. */
async function atVendor(route: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const res = await fetch(`${emu.url}${route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [EXPLO_AUTH_HEADER]: `Token ${API_TOKEN}` },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { customer: Record<string, unknown> }).customer;
}
/** The customer as the vendor holds it (get-or-create never changes an existing customer). */
const vendorCopy = (id = 'acme') => atVendor(EXPLO_CUSTOMER_ROUTES.getOrCreate, { provided_id: id, name: 'read' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tokenOf = (res: { status: number; body: unknown }) => {
  expect(res.status).toBe(200);
  return (res.body as { token: string }).token;
};

const storeKinds: Array<[string, () => Partial<BffAppOptions>]> = [
  ['the memory store', () => ({})],
  [
    'the Redis store (real redis-server)',
    () => {
      const store = createRedisStore({ url: server!.url, keyPrefix: `mapping${stores.length}:` });
      stores.push(store);
      return { store };
    },
  ],
];

describe.each(storeKinds)('a mapping set at the vendor, with %s and the Customer API', (kind, storeOptions) => {
  const skip = kind.startsWith('the Redis') && !redis.available;
  const startBff = async (overrides: Partial<BffAppOptions> = {}) => {
    const bff = await emu.start({ revalidateAfterSeconds: 0.05, ...storeOptions(), ...overrides });
    const ask = async (claims: Record<string, unknown> = acme) =>
      bff.post('/embed/token', { origin: bff.url, authorization: `Bearer ${await session(claims)}` });
    return { ...bff, ask };
  };

  it.skipIf(skip)('survives the first sync (another org_name), drift correction and rotation: no mapping is sent unless the integrator gives one', async () => {
    await atVendor(EXPLO_CUSTOMER_ROUTES.getOrCreate, { provided_id: 'acme', name: 'Acme (old name)', mapping: { schema_1: 'ds_eu' }, properties: {} });
    const bff = await startBff();
    const token = tokenOf(await bff.ask());
    expect(await vendorCopy()).toMatchObject({ name: 'Acme Corp', properties: acme.embed_properties, parent_schema_datasource_mapping: { schema_1: 'ds_eu' } });

    // Properties widened at the vendor: corrected on revalidation; the mapping is not drift.
    await atVendor(EXPLO_CUSTOMER_ROUTES.update, { provided_id: 'acme', properties: { region: 'ALL' } });
    await sleep(100);
    expect(tokenOf(await bff.ask())).toBe(token);
    expect(await vendorCopy()).toMatchObject({ properties: acme.embed_properties, parent_schema_datasource_mapping: { schema_1: 'ds_eu' } });

    // The mapping changed in the vendor's UI: neither overwritten nor reported as drift.
    const updates = emu.emulator.stats().requests.update;
    await atVendor(EXPLO_CUSTOMER_ROUTES.update, { provided_id: 'acme', mapping: { schema_1: 'ds_us' } });
    await sleep(100);
    expect(tokenOf(await bff.ask())).toBe(token);
    expect(emu.emulator.stats().requests.update).toBe(updates + 1);
    expect(await vendorCopy()).toMatchObject({ parent_schema_datasource_mapping: { schema_1: 'ds_us' } });

    const rotated = await bff.post('/embed/token/rotate', { origin: bff.url, authorization: `Bearer ${await session()}` }, { token });
    expect(tokenOf(rotated)).not.toBe(token);
    expect(await vendorCopy()).toMatchObject({ name: 'Acme Corp', parent_schema_datasource_mapping: { schema_1: 'ds_us' } });
  });

  it.skipIf(skip)('writes and corrects a mapping the integrator manages (EMBED_MAPPING / the mapping claim), and only then', async () => {
    await atVendor(EXPLO_CUSTOMER_ROUTES.getOrCreate, {
      provided_id: 'acme',
      name: 'Acme Corp',
      mapping: { schema_1: 'ds_eu' },
      properties: acme.embed_properties,
    });
    const bff = await startBff({ session: { secret: SESSION_SECRET, staticMapping: { schema_1: 'ds_static' } } });
    const token = tokenOf(await bff.ask());
    expect(await vendorCopy()).toMatchObject({ parent_schema_datasource_mapping: { schema_1: 'ds_static' } });
    // Changed at the vendor: the managed mapping is drift, corrected on revalidation.
    await atVendor(EXPLO_CUSTOMER_ROUTES.update, { provided_id: 'acme', mapping: { schema_1: 'ds_other', schema_2: 'ds_x' } });
    await sleep(100);
    expect(tokenOf(await bff.ask())).toBe(token);
    expect(await vendorCopy()).toMatchObject({ parent_schema_datasource_mapping: { schema_1: 'ds_static' } });
    // The session's claim outranks the static mapping.
    await sleep(100);
    tokenOf(await bff.ask({ ...acme, embed_mapping: { schema_1: 'ds_claim' } }));
    expect(await vendorCopy()).toMatchObject({ parent_schema_datasource_mapping: { schema_1: 'ds_claim' } });
  });
});
