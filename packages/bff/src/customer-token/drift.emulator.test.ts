import { afterAll, describe, expect, it } from 'vitest';
import type { UserGroupInput } from '@embedded-dashboard/protocol';
import type { BffAppOptions } from '../options.js';
import { SignJWT } from 'jose';
import { acme, API_TOKEN, findLeaks, session, SESSION_KEY } from '../../test/support/fixtures.js';
import { emulatorBffs } from '../../test/support/socket-bffs.js';

const TESTING_API_TOKEN = 'LEAKCHECK-testing-api-token-drift-7c1e';

const emu = emulatorBffs({ testingApiToken: TESTING_API_TOKEN });
afterAll(() => {
  expect(findLeaks()).toEqual([]);
});

/** A BFF on a real socket in front of the real emulator through the real client. */
async function startBff(overrides: Partial<BffAppOptions> = {}, apiToken = API_TOKEN) {
  const bff = await emu.start({ secrets: [API_TOKEN, TESTING_API_TOKEN], ...overrides }, apiToken);
  const getToken = (headers: Record<string, string>) => bff.post('/embed/token', { origin: bff.url, ...headers });
  return { client: bff.client, getToken, ask: async (jwt: string) => getToken({ authorization: `Bearer ${jwt}` }) };
}

const tokenOf = (res: { body: unknown }) => (res.body as { token: string }).token;
const propertiesAtVendor = (token: string) => emu.emulator.resolveToken(token)?.properties;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const now = () => Math.floor(Date.now() / 1000);
/** A session issued at `iat` (epoch seconds), valid for the next hour. */
const issuedAt = (iat: number, claims: Record<string, unknown>) =>
  new SignJWT({ ...acme, ...claims, exp: now() + 3600 }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(iat).sign(SESSION_KEY);

describe('drift sync against the emulator', () => {
  it('corrects drift made at the vendor: revalidation compares what the vendor returns with the session', async () => {
    const bff = await startBff({ revalidateAfterSeconds: 0.05 });
    const token = tokenOf(await bff.ask(await session()));
    // Someone widens the group at the vendor.
    await bff.client.updateUserGroup({ user_group_id: 'acme', name: 'Acme Corp', mapping: {}, properties: { region: 'ALL', plan: 'pro' } });
    expect(propertiesAtVendor(token)).toEqual({ region: 'ALL', plan: 'pro' });
    await sleep(100);
    expect(tokenOf(await bff.ask(await session()))).toBe(token);
    expect(propertiesAtVendor(token)).toEqual(acme.embed_properties);
  });

  it('lets the session with the newest iat decide: an older still-valid session is served the token and rewrites nothing', async () => {
    const bff = await startBff();
    const older = await issuedAt(now() - 600, { sub: 'old-tab', embed_properties: { region: 'EU', plan: 'pro' } });
    const newer = await issuedAt(now() - 60, { sub: 'new-tab', embed_properties: { region: 'US', plan: 'pro' } });
    const token = tokenOf(await bff.ask(newer));
    expect(propertiesAtVendor(token)).toEqual({ region: 'US', plan: 'pro' });
    const updatesBefore = emu.emulator.stats().requests.update;
    for (let i = 0; i < 3; i++) {
      expect(tokenOf(await bff.ask(older))).toBe(token);
      expect(tokenOf(await bff.ask(newer))).toBe(token);
    }
    expect(propertiesAtVendor(token)).toEqual({ region: 'US', plan: 'pro' });
    expect(emu.emulator.stats().requests.update).toBe(updatesBefore);
    // An even newer session changes the group again.
    const newest = await issuedAt(now(), { sub: 'newest', embed_properties: { region: 'APAC', plan: 'pro' } });
    expect(tokenOf(await bff.ask(newest))).toBe(token);
    expect(propertiesAtVendor(token)).toEqual({ region: 'APAC', plan: 'pro' });
  });

  it('refuses a session issued beyond the clock skew (an hour ahead, or iat in milliseconds): correct sessions after it decide', async () => {
    for (const [org, ahead] of [
      ['acme-future', now() + 3600],
      ['acme-millis', Date.now()],
    ] as const) {
      const bff = await startBff();
      const wide = await issuedAt(ahead, { org_id: org, sub: 'skewed', embed_properties: { region: 'ALL', plan: 'pro' } });
      const refused = await bff.ask(wide);
      expect(refused.status).toBe(401);
      expect(refused.body).toMatchObject({ error: { code: 'unauthenticated', message: expect.stringMatching(/iat.*future/) } });
      let token = '';
      for (let i = 0; i < 3; i++) {
        const res = await bff.ask(await issuedAt(now() - 2 + i, { org_id: org, sub: `tab-${i}`, embed_properties: { region: 'EU', plan: 'pro' } }));
        expect(res.status).toBe(200);
        token = tokenOf(res);
      }
      expect(propertiesAtVendor(token)).toEqual({ region: 'EU', plan: 'pro' });
    }
  });

  it('accepts a session a few seconds ahead (within the skew) with its own iat', async () => {
    const bff = await startBff();
    const res = await bff.ask(await issuedAt(now() + 20, { org_id: 'acme-ahead', embed_properties: { region: 'US', plan: 'pro' } }));
    expect(res.status).toBe(200);
    expect(propertiesAtVendor(tokenOf(res))).toEqual({ region: 'US', plan: 'pro' });
  });

  it('gives sessions of equal iat one winner whatever their order (the greater claims fingerprint), with no flip-flop', async () => {
    const iat = now() - 30;
    const claimsOf = (org: string) => [
      { org_id: org, sub: 'eu-tab', embed_properties: { region: 'EU', plan: 'pro' } },
      { org_id: org, sub: 'us-tab', embed_properties: { region: 'US', plan: 'pro' } },
    ];
    const winners = [];
    for (const [org, order] of [
      ['acme-equal-1', [0, 1]],
      ['acme-equal-2', [1, 0]],
    ] as const) {
      const bff = await startBff();
      const sessions = await Promise.all(claimsOf(org).map((claims) => issuedAt(iat, claims)));
      const token = tokenOf(await bff.ask(sessions[order[0]]!));
      const updatesBefore = emu.emulator.stats().requests.update;
      for (let i = 0; i < 4; i++) {
        expect(tokenOf(await bff.ask(sessions[order[1]]!))).toBe(token);
        expect(tokenOf(await bff.ask(sessions[order[0]]!))).toBe(token);
      }
      // At most the one update that made the winner's claims the vendor's.
      expect(emu.emulator.stats().requests.update - updatesBefore).toBeLessThanOrEqual(1);
      winners.push(propertiesAtVendor(token));
    }
    expect(winners[0]).toEqual(winners[1]);
  });

  it('orders sessions without iat by their exp: the later-expiring session wins, an older tab rewrites nothing', async () => {
    const bff = await startBff();
    const withoutIat = (exp: number, claims: Record<string, unknown>) =>
      new SignJWT({ ...acme, org_id: 'acme-no-iat', ...claims, exp }).setProtectedHeader({ alg: 'HS256' }).sign(SESSION_KEY);
    const older = await withoutIat(now() + 1800, { sub: 'old-tab', embed_properties: { region: 'EU', plan: 'pro' } });
    const newer = await withoutIat(now() + 3600, { sub: 'new-tab', embed_properties: { region: 'US', plan: 'pro' } });
    const token = tokenOf(await bff.ask(older));
    expect(propertiesAtVendor(token)).toEqual({ region: 'EU', plan: 'pro' });
    expect(tokenOf(await bff.ask(newer))).toBe(token);
    expect(propertiesAtVendor(token)).toEqual({ region: 'US', plan: 'pro' });
    const updatesBefore = emu.emulator.stats().requests.update;
    for (let i = 0; i < 3; i++) {
      expect(tokenOf(await bff.ask(older))).toBe(token);
      expect(tokenOf(await bff.ask(newer))).toBe(token);
    }
    expect(propertiesAtVendor(token)).toEqual({ region: 'US', plan: 'pro' });
    expect(emu.emulator.stats().requests.update).toBe(updatesBefore);
    // A session that has an iat outranks every session without one.
    const withIat = await issuedAt(now() - 3000, { org_id: 'acme-no-iat', sub: 'with-iat', embed_properties: { region: 'APAC', plan: 'pro' } });
    expect(tokenOf(await bff.ask(withIat))).toBe(token);
    expect(tokenOf(await bff.ask(newer))).toBe(token);
    expect(propertiesAtVendor(token)).toEqual({ region: 'APAC', plan: 'pro' });
  });

  it('syncs drift when a custom identify() returns the same object, mutated', async () => {
    const group: UserGroupInput = { user_group_id: 'acme', name: 'Acme Corp', mapping: {}, properties: { region: 'EU' } };
    const bff = await startBff({ session: undefined, identify: () => ({ group }) });
    const token = tokenOf(await bff.getToken({}));
    expect(propertiesAtVendor(token)).toEqual({ region: 'EU' });
    group.properties = { region: 'US' };
    expect(tokenOf(await bff.getToken({}))).toBe(token);
    expect(propertiesAtVendor(token)).toEqual({ region: 'US' });
  });

  it('refuses a vendor key of the wrong environment before touching any customer group, and remembers it', async () => {
    const bff = await startBff({ expectEnvironment: 'Customer' }, TESTING_API_TOKEN);
    const answers = [];
    for (const org of ['acme', 'globex', 'initech']) answers.push(await bff.ask(await session({ ...acme, org_id: org })));
    for (const res of answers) {
      expect(res.status).toBe(502);
      expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
    }
    const stats = emu.emulator.stats();
    // At most the one probe that learned the environment; no customer group exists in Testing.
    expect(stats.requests.getOrCreate + stats.requests.update).toBeLessThanOrEqual(2);
    expect(stats.groups).toBeLessThanOrEqual(1);
    const afterFirst = stats.requests.getOrCreate + stats.requests.update + stats.requests.rotate;
    await bff.ask(await session({ ...acme, org_id: 'umbrella' }));
    const later = emu.emulator.stats().requests;
    expect(later.getOrCreate + later.update + later.rotate).toBe(afterFirst);
  });
});
