import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { UserGroupClient, type UserGroupApiError, type UserGroupClientOptions } from './index.js';

/** The client against the real emulator over real sockets: the contract both sides were built to. */
let running: RunningEmulator;
const clients: UserGroupClient[] = [];
const sleeps: number[] = [];

beforeAll(async () => {
  running = await startEmulator({ port: 0 });
});
afterAll(async () => {
  for (const client of clients) client.close();
  await running.close();
});
beforeEach(() => {
  running.emulator.reset();
  sleeps.length = 0;
});

function client(options: Partial<UserGroupClientOptions> = {}): UserGroupClient {
  const created = new UserGroupClient({
    baseUrl: running.url,
    apiToken: 'dev-customer-key',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  clients.push(created);
  return created;
}
const acme = { name: 'Acme Corp', user_group_id: 'acme', mapping: { sales: 'ds-1' }, properties: { region: 'EU', plan: 'pro' } };
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as UserGroupApiError,
  );

describe('UserGroupClient against the emulator', () => {
  it('creates a group with a GET body, then returns it as stored', async () => {
    const c = client();
    const first = await c.getOrCreateUserGroup(acme);
    expect(first).toMatchObject({ success: 1, new_user_group: true, user_group: { name: 'Acme Corp', provided_id: 'acme', properties: acme.properties } });
    const again = await c.getOrCreateUserGroup({ ...acme, name: 'Acme Renamed' });
    expect(again.new_user_group).toBe(false);
    expect(again.user_group.token).toBe(first.user_group.token);
    expect(again.user_group.name).toBe('Acme Corp');
  });

  it("generates an embed token with the Customer API that the emulator's dashboards accept for that customer", async () => {
    const c = client({ api: 'explo-customer' });
    await c.getOrCreateUserGroup(acme);
    const { jwt } = await c.generateJwt({ provided_id: 'acme', embed_id: 'sales-overview', expiration: 'PT10M' });
    const data = await fetch(`${running.url}/iframe-data/sales-overview`, { headers: { Authorization: `Bearer ${jwt}` } });
    expect(await data.json()).toMatchObject({ group: { name: 'Acme Corp' }, tokenExpiresInMs: expect.any(Number) });
    const error = await failure(c.generateJwt({ provided_id: 'nobody', embed_id: 'sales-overview' }));
    expect(error).toMatchObject({ code: 'http_status', status: 404, retryable: false });
  });

  it('updates a group and reports its environment', async () => {
    const c = client();
    await c.getOrCreateUserGroup(acme);
    const updated = await c.updateUserGroup({ ...acme, name: 'Acme Renamed', properties: { region: 'US' } });
    expect(updated.user_group).toMatchObject({ name: 'Acme Renamed', provided_id: 'acme', api_environment_tag: 'Customer' });
    expect((await c.getOrCreateUserGroup(acme)).user_group.properties).toEqual({ region: 'US' });
  });

  it('rotates a token once; a second rotate of the old token fails and get-or-create recovers', async () => {
    const c = client();
    const { user_group: group } = await c.getOrCreateUserGroup(acme);
    const rotated = await c.rotateUserGroupToken(group.token);
    expect(rotated.user_group.token).not.toBe(group.token);
    expect(rotated.user_group.provided_id).toBe('acme');
    const stale = await failure(c.rotateUserGroupToken(group.token));
    expect(stale.retryable).toBe(false);
    expect(running.emulator.stats().requests.rotate).toBe(2);
    expect((await c.getOrCreateUserGroup(acme)).user_group.token).toBe(rotated.user_group.token);
  });

  it('refuses a wrong API key without retrying and without echoing it', async () => {
    const error = await failure(client({ apiToken: 'wrong-key-value' }).getOrCreateUserGroup(acme));
    expect(error.retryable).toBe(false);
    expect(['http_status', 'api_failure']).toContain(error.code);
    expect(error.message).not.toContain('wrong-key-value');
    expect(sleeps).toEqual([]);
  });

  it('retries injected 503s up to maxAttempts', async () => {
    running.emulator.setFaults({ serverErrorRate: 1, operations: ['getOrCreate'] });
    const error = await failure(client({ maxAttempts: 3 }).getOrCreateUserGroup(acme));
    expect(error).toMatchObject({ code: 'http_status', status: 503, retryable: true });
    expect(running.emulator.stats().requests.getOrCreate).toBe(3);
    expect(sleeps).toHaveLength(2);
  });

  it('honours the Retry-After of injected 429s', async () => {
    running.emulator.setFaults({ rateLimitRate: 1, retryAfterSeconds: 2 });
    const error = await failure(client({ maxAttempts: 2 }).updateUserGroup(acme));
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryAfterMs: 2000 });
    expect(sleeps).toEqual([2000]);
  });

  it('maps injected dropped connections, success: 0 and malformed bodies', async () => {
    running.emulator.setFaults({ dropRate: 1 });
    expect((await failure(client({ maxAttempts: 2 }).getOrCreateUserGroup(acme))).code).toBe('network');
    running.emulator.setFaults({ failureRate: 1 });
    expect((await failure(client().getOrCreateUserGroup(acme))).code).toBe('api_failure');
    running.emulator.setFaults({ malformedRate: 1 });
    expect((await failure(client().getOrCreateUserGroup(acme))).code).toBe('malformed_response');
  });

  it('never rotates twice when the connection drops', async () => {
    const c = client();
    const { user_group: group } = await c.getOrCreateUserGroup(acme);
    running.emulator.setFaults({ dropRate: 1, operations: ['rotate'] });
    expect((await failure(c.rotateUserGroupToken(group.token))).code).toBe('network');
    expect(running.emulator.stats().requests.rotate).toBe(1);
  });
});
