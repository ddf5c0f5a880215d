import { describe, expect, it } from 'vitest';
import { EMULATOR_ADMIN_ROUTES } from '@embedded-dashboard/protocol';
import { createEmulator } from '../emulator.js';
import { callApi, group } from '../../test/support/call-api.js';

const post = (body: unknown, contentType = 'application/json') => ({
  method: 'POST',
  headers: { 'Content-Type': contentType },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

describe('admin routes off (default)', () => {
  it.each(Object.values(EMULATOR_ADMIN_ROUTES))('answers 404 for %s', async (path) => {
    const emulator = createEmulator();
    await callApi(emulator.app, 'GET', { body: group('a') });
    for (const init of [{ method: 'GET' }, post({})]) {
      const response = await emulator.app.request(path, init);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ success: 0, error: { code: 'not_found' } });
    }
    expect(emulator.stats().groups).toBe(1);
  });
});

describe('admin routes on', () => {
  it('GET stats counts every call that reached an operation, failed ones included', async () => {
    const { app } = createEmulator({ admin: true });
    const created = await callApi(app, 'GET', { body: group('a') });
    await callApi(app, 'GET', { body: group('a') });
    await callApi(app, 'PUT', { body: group('a') });
    await callApi(app, 'PUT', { body: group('missing') });
    await callApi(app, 'POST', { body: { current_token: created.body.user_group.token } });
    await callApi(app, 'POST', { key: 'wrong', body: {} });
    const stats = await (await app.request(EMULATOR_ADMIN_ROUTES.stats)).json();
    expect(stats).toEqual({ requests: { getOrCreate: 2, update: 2, rotate: 2, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 1 });
  });

  it('POST reset empties the emulator', async () => {
    const emulator = createEmulator({ admin: true, faults: { latencyMs: 1 } });
    await callApi(emulator.app, 'GET', { body: group('a') });
    const response = await emulator.app.request(EMULATOR_ADMIN_ROUTES.reset, { method: 'POST' });
    expect(await response.json()).toEqual({ success: 1 });
    expect(emulator.stats()).toEqual({ requests: { getOrCreate: 0, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 0 });
  });

  it('POST expire stops a token; unknown tokens are 404 unknown_token', async () => {
    const emulator = createEmulator({ admin: true });
    const token = (await callApi(emulator.app, 'GET', { body: group('a') })).body.user_group.token;
    const ok = await emulator.app.request(EMULATOR_ADMIN_ROUTES.expire, post({ token }));
    expect(ok.status).toBe(200);
    expect(emulator.resolveToken(token)).toBeUndefined();
    const unknown = await emulator.app.request(EMULATOR_ADMIN_ROUTES.expire, post({ token: 'nope' }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error: { code: 'unknown_token' } });
  });

  it.each([
    [{}, 400],
    [{ token: 5 }, 400],
    [{ token: '' }, 400],
    [{ token: 't', extra: 1 }, 400],
    ['not json', 400],
    ['[]', 400],
  ])('POST expire refuses %j', async (body, status) => {
    const { app } = createEmulator({ admin: true });
    const response = await app.request(EMULATOR_ADMIN_ROUTES.expire, post(body));
    expect(response.status).toBe(status);
    expect((await response.json()).success).toBe(0);
  });

  it('POST faults sets and clears the faults', async () => {
    const emulator = createEmulator({ admin: true });
    const set = await emulator.app.request(EMULATOR_ADMIN_ROUTES.faults, post({ serverErrorRate: 1 }));
    expect(await set.json()).toEqual({ success: 1, faults: { serverErrorRate: 1 } });
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(503);
    await emulator.app.request(EMULATOR_ADMIN_ROUTES.faults, post({}));
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(200);
  });

  it.each([[{ dropRate: 5 }], [{ bogus: true }], [{ operations: ['x'] }]])('POST faults refuses %j with invalid_field', async (body) => {
    const { app } = createEmulator({ admin: true });
    const response = await app.request(EMULATOR_ADMIN_ROUTES.faults, post(body));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ success: 0, error: { code: 'invalid_field' } });
  });

  it('POST faults refuses a wrong content type', async () => {
    const { app } = createEmulator({ admin: true });
    const response = await app.request(EMULATOR_ADMIN_ROUTES.faults, post({}, 'text/plain'));
    expect(response.status).toBe(415);
  });
});
