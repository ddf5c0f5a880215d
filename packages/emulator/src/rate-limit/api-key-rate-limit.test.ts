import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { CUSTOMER_KEY, TESTING_KEY, callApi, group } from '../../test/support/call-api.js';

const clock = () => {
  const state = { now: 1_000_000 };
  return { state, now: () => state.now };
};

describe('rateLimitPerMinute', () => {
  it("lets a minute's worth through at once, then answers 429 rate_limited with Retry-After and success 0", async () => {
    const { state, now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 3, now, admin: true });
    for (let i = 0; i < 3; i++) expect((await callApi(emulator.app, 'GET', { body: group(`g${i}`) })).status).toBe(200);
    const refused = await callApi(emulator.app, 'GET', { body: group('g3') });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ success: 0, error: { code: 'rate_limited' } });
    // 3 a minute: one request every 20 s.
    expect(refused.response.headers.get('retry-after')).toBe('20');
    state.now += 10_000;
    expect((await callApi(emulator.app, 'PUT', { body: group('g0') })).response.headers.get('retry-after')).toBe('10');
    expect(emulator.stats()).toEqual({ requests: { getOrCreate: 4, update: 1, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 2 }, groups: 3 });
    const stats = await (await emulator.app.request('/__emulator/stats')).json();
    expect(stats.rejected).toEqual({ rateLimited: 2 });
  });

  it('refused requests change nothing', async () => {
    const { now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 1, now });
    await callApi(emulator.app, 'GET', { body: group('a') });
    expect((await callApi(emulator.app, 'GET', { body: group('b') })).status).toBe(429);
    expect(emulator.stats().groups).toBe(1);
  });

  it('refills at the steady rate, never beyond one minute of requests', async () => {
    const { state, now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 60, now });
    const burst = async (count: number) => {
      let ok = 0;
      for (let i = 0; i < count; i++) if ((await callApi(emulator.app, 'GET', { body: group('a') })).status === 200) ok++;
      return ok;
    };
    expect(await burst(100)).toBe(60);
    state.now += 5_000;
    expect(await burst(10)).toBe(5);
    state.now += 3_600_000;
    expect(await burst(100)).toBe(60);
  });

  it('counts each API key on its own', async () => {
    const { now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 1, now });
    expect((await callApi(emulator.app, 'GET', { key: CUSTOMER_KEY, body: group('a') })).status).toBe(200);
    expect((await callApi(emulator.app, 'GET', { key: CUSTOMER_KEY, body: group('a') })).status).toBe(429);
    expect((await callApi(emulator.app, 'GET', { key: TESTING_KEY, body: group('a') })).status).toBe(200);
  });

  it('does not mint requests when the clock steps back', async () => {
    const { state, now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 1, now });
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(200);
    state.now -= 3_600_000;
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(429);
    state.now += 3_600_000 + 60_000;
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(200);
  });

  it('is off by default in the library and with 0; reset refills every key', async () => {
    const { now } = clock();
    const unlimited = createEmulator({ now });
    for (let i = 0; i < 500; i++) expect((await callApi(unlimited.app, 'GET', { body: group('a') })).status).toBe(200);
    const limited = createEmulator({ rateLimitPerMinute: 1, now });
    await callApi(limited.app, 'GET', { body: group('a') });
    limited.reset();
    expect((await callApi(limited.app, 'GET', { body: group('a') })).status).toBe(200);
    expect(limited.stats().rejected).toEqual({ rateLimited: 0 });
    expect(createEmulator({ rateLimitPerMinute: 0, now }).stats().rejected).toEqual({ rateLimited: 0 });
  });

  it('does not count requests without a valid API key against anyone', async () => {
    const { now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 1, now });
    for (let i = 0; i < 5; i++) expect((await callApi(emulator.app, 'GET', { key: 'wrong', body: group('a') })).status).toBe(401);
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(200);
  });

  it('rateLimitBurst sizes the bucket: the vendor minute compressed (60 a minute, burst 6)', async () => {
    const { state, now } = clock();
    const emulator = createEmulator({ rateLimitPerMinute: 60, rateLimitBurst: 6, now });
    const statuses = async (count: number) => {
      const list: number[] = [];
      for (let i = 0; i < count; i++) list.push((await callApi(emulator.app, 'GET', { body: group('a') })).status);
      return list.filter((status) => status === 200).length;
    };
    expect(await statuses(10)).toBe(6);
    state.now += 2_000;
    expect(await statuses(10)).toBe(2);
    state.now += 3_600_000;
    expect(await statuses(10)).toBe(6);
    expect(() => createEmulator({ rateLimitBurst: 5 })).toThrow(/rateLimitBurst/);
    expect(() => createEmulator({ rateLimitPerMinute: 60, rateLimitBurst: 0 })).toThrow(/rateLimitBurst/);
  });

  it.each([-1, 1.5, Number.NaN, '10'])('refuses rateLimitPerMinute %s', (rateLimitPerMinute) => {
    expect(() => createEmulator({ rateLimitPerMinute: rateLimitPerMinute as number })).toThrow(/rateLimitPerMinute/);
  });
});
