import { describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { createEmulator } from '../emulator.js';
import type { EmulatorEnv } from '../http/body.js';
import { callApi, CUSTOMER_KEY, group, TESTING_KEY } from '../../test/support/call-api.js';

async function post(app: Hono<EmulatorEnv>, path: string, body: unknown, key: string | null = CUSTOMER_KEY, method = 'POST') {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (key !== null) headers['Explo-Authorization'] = `Token ${key}`;
  const response = await app.request(path, { method, headers, body: method === 'GET' ? undefined : JSON.stringify(body) });
  return { status: response.status, body: await response.json(), response };
}
const customer = (id: string, extra: Record<string, unknown> = {}) => ({
  provided_id: id,
  name: `Group ${id}`,
  mapping: { sales: `ds-${id}` },
  properties: { region: 'EU' },
  ...extra,
});

describe('the Customer API (the vendor current API) over the same groups as /api/user', () => {
  it('create_customer creates, then returns the stored customer with new_customer false', async () => {
    const { app } = createEmulator();
    const created = await post(app, '/api/create_customer/', customer('acme'));
    expect(created.status).toBe(200);
    expect(created.body).toEqual({
      success: 1,
      new_customer: true,
      customer: {
        token: expect.any(String),
        name: 'Group acme',
        provided_id: 'acme',
        is_demo_group: false,
        properties: { region: 'EU' },
        parent_schema_datasource_mapping: { sales: 'ds-acme' },
      },
    });
    const again = await post(app, '/api/create_customer/', customer('acme', { name: 'Renamed' }));
    expect(again.body.new_customer).toBe(false);
    expect(again.body.customer).toEqual(created.body.customer);
  });

  it('is the same group as /api/user: one token, update and refresh seen by both APIs', async () => {
    const { app, stats } = createEmulator();
    const old = await callApi(app, 'GET', { body: group('acme') });
    const viaCustomer = await post(app, '/api/create_customer/', customer('acme'));
    expect(viaCustomer.body.new_customer).toBe(false);
    expect(viaCustomer.body.customer.token).toBe(old.body.user_group.token);
    const updated = await post(app, '/api/update_customer/', customer('acme', { name: 'Acme 2', properties: { region: 'US' } }));
    expect(updated.body.customer).toMatchObject({ name: 'Acme 2', properties: { region: 'US' } });
    const refreshed = await post(app, '/api/refresh_customer_token/', { current_token: old.body.user_group.token });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.customer.token).not.toBe(old.body.user_group.token);
    const seenByOldApi = await callApi(app, 'GET', { body: group('acme') });
    expect(seenByOldApi.body.user_group).toMatchObject({ token: refreshed.body.customer.token, name: 'Acme 2' });
    expect(stats().requests).toEqual({ getOrCreate: 3, update: 1, rotate: 1, generateJwt: 0 });
  });

  it("update_customer changes only the fields given (the vendor's Update Customer page): one left out is unchanged, an object given replaces", async () => {
    const { app } = createEmulator();
    await post(app, '/api/create_customer/', customer('acme', { mapping: { schema_1: 'ds_eu', schema_2: 'ds_x' }, properties: { region: 'EU', plan: 'pro' } }));
    const onlyProperties = await post(app, '/api/update_customer/', { provided_id: 'acme', properties: { region: 'US' } });
    expect(onlyProperties.status).toBe(200);
    expect(onlyProperties.body.customer).toMatchObject({
      name: 'Group acme',
      properties: { region: 'US' },
      parent_schema_datasource_mapping: { schema_1: 'ds_eu', schema_2: 'ds_x' },
    });
    const onlyMapping = await post(app, '/api/update_customer/', { provided_id: 'acme', mapping: { schema_1: 'ds_us' } });
    expect(onlyMapping.body.customer.parent_schema_datasource_mapping).toEqual({ schema_1: 'ds_us' });
    expect(onlyMapping.body.customer).toMatchObject({ name: 'Group acme', properties: { region: 'US' } });
    const onlyName = await post(app, '/api/update_customer/', { provided_id: 'acme', name: 'Acme 3' });
    expect(onlyName.body.customer).toMatchObject({ name: 'Acme 3', properties: { region: 'US' }, parent_schema_datasource_mapping: { schema_1: 'ds_us' } });
    const emptied = await post(app, '/api/update_customer/', { provided_id: 'acme', mapping: {}, properties: {} });
    expect(emptied.body.customer).toMatchObject({ name: 'Acme 3', properties: {}, parent_schema_datasource_mapping: {} });
    for (const [body, message] of [
      [{ provided_id: 'acme', name: '' }, /name must not be empty/],
      [{ provided_id: 'acme', name: 5 }, /name must be a string/],
      [{ name: 'Acme' }, /provided_id is required/],
      [{ provided_id: 'acme', mapping: JSON.parse('{"__proto__":5}') as unknown }, /mapping.__proto__ must be a string/],
      [{ provided_id: 'acme', emails: [] }, /unknown field .{0,2}emails/],
    ] as const) {
      const refused = await post(app, '/api/update_customer/', body);
      expect(refused.status).toBe(400);
      expect(JSON.stringify(refused.body)).toMatch(message);
    }
    // create_customer still requires a name: a customer is never created nameless.
    expect((await post(app, '/api/create_customer/', { provided_id: 'globex' })).status).toBe(400);
  });

  it('keeps environments apart by API key, like /api/user', async () => {
    const { app } = createEmulator();
    const a = await post(app, '/api/create_customer/', customer('acme'), CUSTOMER_KEY);
    const b = await post(app, '/api/create_customer/', customer('acme'), TESTING_KEY);
    expect(b.body.new_customer).toBe(true);
    expect(b.body.customer.token).not.toBe(a.body.customer.token);
  });

  it.each([
    ['a missing header', null, 'missing Explo-Authorization header'],
    ['an unknown key', 'nope', 'unknown API key'],
  ])('refuses %s with 401 and never echoes the key', async (_name, key, message) => {
    const { app } = createEmulator();
    const { status, body } = await post(app, '/api/create_customer/', customer('acme'), key);
    expect(status).toBe(401);
    expect(body).toEqual({ success: 0, error: { code: 'unauthorized', message: expect.stringContaining(message) } });
  });

  it('does not accept the old Authorization header on the Customer API', async () => {
    const { app } = createEmulator();
    const response = await app.request('/api/create_customer/', {
      method: 'POST',
      headers: { Authorization: `Token ${CUSTOMER_KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(customer('acme')),
    });
    expect(response.status).toBe(401);
  });

  it.each([
    ['without the trailing slash', '/api/create_customer', 'POST'],
    ['with GET', '/api/refresh_customer_token/', 'GET'],
  ])('answers 405 method_not_allowed %s, as the vendor documents', async (_name, path, method) => {
    const { app, stats } = createEmulator();
    const { status, body, response } = await post(app, path, customer('acme'), CUSTOMER_KEY, method);
    expect(status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
    expect(body.error.code).toBe('method_not_allowed');
    expect(stats().requests.getOrCreate + stats().requests.rotate).toBe(0);
  });

  it.each([
    [{ name: 'x' }, 'provided_id is required'],
    [{ provided_id: 'x' }, 'name is required'],
    [{ ...customer('x'), user_group_id: 'x' }, 'unknown field "user_group_id"'],
    [{ ...customer('x'), emails: [] }, 'unknown field "emails"'],
    [{ ...customer('x'), mapping: { a: 1 } }, 'mapping.a must be a string'],
  ])('refuses a bad body %j with 400 invalid_field', async (bad, message) => {
    const { app } = createEmulator();
    const { status, body } = await post(app, '/api/create_customer/', bad);
    expect(status).toBe(400);
    expect(body.error).toEqual({ code: 'invalid_field', message: expect.stringContaining(message) });
  });

  it('update_customer of an unknown customer is 404; refresh of an unknown token is its own error', async () => {
    const { app } = createEmulator();
    expect((await post(app, '/api/update_customer/', customer('ghost'))).body.error.code).toBe('not_found');
    expect((await post(app, '/api/refresh_customer_token/', { current_token: 'nope' })).body.error.code).toBe('unknown_token');
  });

  it('applies the same faults as /api/user', async () => {
    const emulator = createEmulator();
    emulator.setFaults({ serverErrorRate: 1, operations: ['rotate'] });
    const created = await post(emulator.app, '/api/create_customer/', customer('acme'));
    expect(created.status).toBe(200);
    expect((await post(emulator.app, '/api/refresh_customer_token/', { current_token: created.body.customer.token })).status).toBe(503);
  });
});
