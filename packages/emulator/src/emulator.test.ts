import { describe, expect, it } from 'vitest';
import { createEmulator } from './emulator.js';
import { callApi, group } from '../test/support/call-api.js';

const dashboardData = (app: ReturnType<typeof createEmulator>['app'], token: string) =>
  app.request('/iframe-data/sales-overview', { headers: { Authorization: `Bearer ${token}` } });

describe('the mounted dashboard host', () => {
  it('serves the page and accepts exactly the tokens resolveToken accepts', async () => {
    let now = 0;
    const emulator = createEmulator({ tokenTtlSeconds: 100, rotationGraceSeconds: 10, now: () => now });
    const page = await emulator.app.request('/iframe/sales-overview');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors http://localhost:* http://127.0.0.1:*');

    const first = (await callApi(emulator.app, 'GET', { body: group('acme', { name: 'Acme Corp' }) })).body.user_group.token;
    expect((await dashboardData(emulator.app, first)).status).toBe(200);

    const second = (await callApi(emulator.app, 'POST', { body: { current_token: first } })).body.user_group.token;
    now += 9_999;
    expect((await dashboardData(emulator.app, first)).status).toBe(200);
    now += 1;
    expect((await dashboardData(emulator.app, first)).status).toBe(401);
    expect((await dashboardData(emulator.app, second)).status).toBe(200);

    emulator.expireToken(second);
    expect((await dashboardData(emulator.app, second)).status).toBe(401);
    const third = (await callApi(emulator.app, 'POST', { body: { current_token: second } })).body.user_group.token;
    now += 99_999;
    expect((await dashboardData(emulator.app, third)).status).toBe(200);
    now += 1;
    expect((await dashboardData(emulator.app, third)).status).toBe(401);
  });

  it('frames only for the configured embed origins', async () => {
    const { app } = createEmulator({ embedOrigins: ['https://app.example.com'] });
    const page = await app.request('/iframe/sales-overview');
    expect(page.headers.get('content-security-policy')).toContain('frame-ancestors https://app.example.com');
  });
});

describe('dashboardRefreshSeconds', () => {
  it('sets how often the served page re-fetches its data', async () => {
    const pageConfig = async (options: Parameters<typeof createEmulator>[0]) => {
      const page = await createEmulator(options).app.request('/iframe/sales-overview');
      return (await page.text()).match(/"dataRefreshMs":(\d+)/)?.[1];
    };
    expect(await pageConfig({})).toBe('15000');
    expect(await pageConfig({ dashboardRefreshSeconds: 2 })).toBe('2000');
  });

  it.each([0, -1, Number.NaN, 100_000])('refuses %s', (dashboardRefreshSeconds) => {
    expect(() => createEmulator({ dashboardRefreshSeconds })).toThrow(/dashboardRefreshSeconds/);
  });
});
