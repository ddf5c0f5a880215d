import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { callApi, group, TESTING_KEY } from '../../test/support/call-api.js';

const TOKEN_SHAPE = /^[A-Za-z0-9_-]{32}$/;

describe('GET /api/user (get-or-create)', () => {
  it('creates a new group and echoes name, provided_id and properties', async () => {
    const { app } = createEmulator();
    const { status, body } = await callApi(app, 'GET', { body: group('acme', { properties: { region: 'EU', plan: 'pro' } }) });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: 1,
      new_user_group: true,
      user_group: {
        team_id: expect.any(Number),
        token: expect.stringMatching(TOKEN_SHAPE),
        name: 'Group acme',
        provided_id: 'acme',
        properties: { region: 'EU', plan: 'pro' },
      },
    });
    expect(body.user_group).not.toHaveProperty('api_environment_tag');
  });

  it('returns an existing group as stored, with the same token and new_user_group false, never updating it', async () => {
    const { app, resolveToken } = createEmulator();
    const first = await callApi(app, 'GET', { body: group('acme') });
    const second = await callApi(app, 'GET', { body: group('acme', { name: 'Renamed', properties: { region: 'US' }, mapping: { sales: 'other' } }) });
    expect(second.body.new_user_group).toBe(false);
    expect(second.body.user_group).toEqual(first.body.user_group);
    expect(resolveToken(first.body.user_group.token)).toMatchObject({ name: 'Group acme', properties: { region: 'EU' } });
  });

  it('answers properties null when none were given', async () => {
    const { app } = createEmulator();
    const { body } = await callApi(app, 'GET', { body: { name: 'N', user_group_id: 'n' } });
    expect(body.user_group.properties).toBeNull();
  });

  it('gives different groups different team ids and tokens', async () => {
    const { app } = createEmulator();
    const a = await callApi(app, 'GET', { body: group('a') });
    const b = await callApi(app, 'GET', { body: group('b') });
    expect(a.body.user_group.team_id).not.toBe(b.body.user_group.team_id);
    expect(a.body.user_group.token).not.toBe(b.body.user_group.token);
  });
});

describe('PUT /api/user (update)', () => {
  it('updates name, mapping and properties and returns api_environment_tag without new_user_group', async () => {
    const { app, resolveToken } = createEmulator();
    const created = await callApi(app, 'GET', { body: group('acme') });
    const { status, body } = await callApi(app, 'PUT', { body: group('acme', { name: 'Acme 2', properties: { region: 'US' } }) });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: 1,
      user_group: {
        team_id: created.body.user_group.team_id,
        token: created.body.user_group.token,
        name: 'Acme 2',
        provided_id: 'acme',
        properties: { region: 'US' },
        api_environment_tag: 'Customer',
      },
    });
    const again = await callApi(app, 'GET', { body: group('acme') });
    expect(again.body.user_group).toMatchObject({ name: 'Acme 2', properties: { region: 'US' } });
    expect(resolveToken(created.body.user_group.token)?.properties).toEqual({ region: 'US' });
  });

  it('keeps mapping and properties that the update omits', async () => {
    const { app } = createEmulator();
    await callApi(app, 'GET', { body: group('acme') });
    const { body } = await callApi(app, 'PUT', { body: { name: 'Only name', user_group_id: 'acme' } });
    expect(body.user_group).toMatchObject({ name: 'Only name', properties: { region: 'EU' } });
  });

  it('tags Testing groups Testing', async () => {
    const { app } = createEmulator();
    await callApi(app, 'GET', { key: TESTING_KEY, body: group('t') });
    const { body } = await callApi(app, 'PUT', { key: TESTING_KEY, body: group('t') });
    expect(body.user_group.api_environment_tag).toBe('Testing');
  });

  it('fails with 404 not_found for a group that does not exist, creating nothing', async () => {
    const emulator = createEmulator();
    const { status, body } = await callApi(emulator.app, 'PUT', { body: group('ghost') });
    expect(status).toBe(404);
    expect(body).toEqual({ success: 0, error: { code: 'not_found', message: expect.any(String) } });
    expect(emulator.stats().groups).toBe(0);
  });
});

describe('POST /api/user (rotate)', () => {
  it('returns a new token; the old one stops working and cannot be rotated again', async () => {
    const { app, resolveToken } = createEmulator();
    const created = await callApi(app, 'GET', { body: group('acme') });
    const old = created.body.user_group.token as string;
    const { status, body } = await callApi(app, 'POST', { body: { current_token: old } });
    expect(status).toBe(200);
    expect(body).toEqual({
      success: 1,
      user_group: {
        team_id: created.body.user_group.team_id,
        token: expect.stringMatching(TOKEN_SHAPE),
        name: 'Group acme',
        provided_id: 'acme',
        api_environment_tag: 'Customer',
      },
    });
    expect(body.user_group.token).not.toBe(old);
    expect(resolveToken(old)).toBeUndefined();
    expect(resolveToken(body.user_group.token)).toMatchObject({ providedId: 'acme', environment: 'Customer' });
    const again = await callApi(app, 'POST', { body: { current_token: old } });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('unknown_token');
    const fetched = await callApi(app, 'GET', { body: group('acme') });
    expect(fetched.body.user_group.token).toBe(body.user_group.token);
  });

  it('fails with unknown_token for a token it never issued', async () => {
    const { app } = createEmulator();
    const { status, body } = await callApi(app, 'POST', { body: { current_token: 'nope' } });
    expect(status).toBe(404);
    expect(body).toEqual({ success: 0, error: { code: 'unknown_token', message: expect.any(String) } });
  });
});

describe('environments', () => {
  it('keeps the same user_group_id under the Customer and the Testing key as two groups', async () => {
    const emulator = createEmulator();
    const customer = await callApi(emulator.app, 'GET', { body: group('same', { name: 'Prod' }) });
    const testing = await callApi(emulator.app, 'GET', { key: TESTING_KEY, body: group('same', { name: 'Test' }) });
    expect(customer.body.new_user_group).toBe(true);
    expect(testing.body.new_user_group).toBe(true);
    expect(testing.body.user_group.token).not.toBe(customer.body.user_group.token);
    expect(testing.body.user_group.name).toBe('Test');
    expect(emulator.stats().groups).toBe(2);
    expect(emulator.resolveToken(testing.body.user_group.token)?.environment).toBe('Testing');
  });

  it('never lets one environment update a group of the other', async () => {
    const { app } = createEmulator();
    await callApi(app, 'GET', { body: group('only-customer') });
    const { status } = await callApi(app, 'PUT', { key: TESTING_KEY, body: group('only-customer') });
    expect(status).toBe(404);
  });

  it('never lets one environment rotate a token of the other', async () => {
    const { app, resolveToken } = createEmulator();
    const created = await callApi(app, 'GET', { body: group('acme') });
    const { status, body } = await callApi(app, 'POST', { key: TESTING_KEY, body: { current_token: created.body.user_group.token } });
    expect(status).toBe(404);
    expect(body.error.code).toBe('unknown_token');
    expect(resolveToken(created.body.user_group.token)).toBeDefined();
  });
});

describe('authentication', () => {
  it.each([
    ['missing header', { key: null }],
    ['unknown key', { key: 'wrong-key' }],
    ['Bearer scheme', { authorization: 'Bearer dev-customer-key' }],
    ['lowercase scheme', { authorization: 'token dev-customer-key' }],
    ['two spaces', { authorization: 'Token  dev-customer-key' }],
    ['scheme only', { authorization: 'Token' }],
    ['empty key', { authorization: 'Token ' }],
  ])('answers 401 unauthorized for %s, never repeating the key', async (_, options) => {
    const emulator = createEmulator();
    for (const method of ['GET', 'PUT', 'POST']) {
      const { status, body, response } = await callApi(emulator.app, method, { ...options, body: group('x') });
      expect(status).toBe(401);
      expect(body).toEqual({ success: 0, error: { code: 'unauthorized', message: expect.any(String) } });
      expect(JSON.stringify(body)).not.toContain('dev-customer-key');
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    }
    expect(emulator.stats().groups).toBe(0);
  });
});

describe('methods and paths', () => {
  it.each(['DELETE', 'PATCH', 'OPTIONS', 'HEAD'])('answers 405 method_not_allowed to %s with Allow', async (method) => {
    const { app } = createEmulator();
    const response = await app.request('/api/user', { method });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, PUT, POST');
    if (method !== 'HEAD') expect(await response.json()).toMatchObject({ success: 0, error: { code: 'method_not_allowed' } });
  });

  it('answers 404 not_found as JSON for unknown paths', async () => {
    const { app } = createEmulator();
    const response = await app.request('/api/users');
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ success: 0, error: { code: 'not_found' } });
  });
});
