import { describe, expect, it, vi } from 'vitest';
import { createEmulator } from '../emulator.js';
import { callApi, group } from '../../test/support/call-api.js';
import { drawFault, parseFaultSettings } from './settings.js';

describe('fault injection (in-process)', () => {
  it('answers 503 injected_fault without performing the operation', async () => {
    const emulator = createEmulator({ faults: { serverErrorRate: 1 } });
    const { status, body } = await callApi(emulator.app, 'GET', { body: group('a') });
    expect(status).toBe(503);
    expect(body).toEqual({ success: 0, error: { code: 'injected_fault', message: expect.any(String) } });
    expect(emulator.stats()).toEqual({ requests: { getOrCreate: 1, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 0 });
  });

  it('answers 429 with Retry-After', async () => {
    const emulator = createEmulator();
    emulator.setFaults({ rateLimitRate: 1, retryAfterSeconds: 7 });
    const { status, body, response } = await callApi(emulator.app, 'PUT', { body: group('a') });
    expect(status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(body.error.code).toBe('rate_limited');
  });

  it('answers HTTP 200 with success 0', async () => {
    const emulator = createEmulator({ faults: { failureRate: 1 } });
    const { status, body } = await callApi(emulator.app, 'GET', { body: group('a') });
    expect(status).toBe(200);
    expect(body.success).toBe(0);
    expect(emulator.stats().groups).toBe(0);
  });

  it('answers a malformed body after performing the operation', async () => {
    const emulator = createEmulator({ faults: { malformedRate: 1 } });
    const { status, body } = await callApi(emulator.app, 'GET', { body: group('a') });
    expect(status).toBe(200);
    expect(typeof body).toBe('string');
    expect(() => JSON.parse(body)).toThrow();
    expect(emulator.stats().groups).toBe(1);
  });

  it('drops the answer after performing the operation; in-process that is Response.error()', async () => {
    const emulator = createEmulator({ faults: { dropRate: 1, operations: ['rotate'] } });
    const created = await callApi(emulator.app, 'GET', { body: group('a') });
    expect(created.status).toBe(200);
    const response = await emulator.app.request('/api/user', {
      method: 'POST',
      headers: { Authorization: 'Token dev-customer-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ current_token: created.body.user_group.token }),
    });
    expect(response.type).toBe('error');
    expect(emulator.resolveToken(created.body.user_group.token)).toBeUndefined();
  });

  it('limits faults to the listed operations and clears them with {}', async () => {
    const emulator = createEmulator({ faults: { serverErrorRate: 1, operations: ['update'] } });
    expect((await callApi(emulator.app, 'GET', { body: group('a') })).status).toBe(200);
    expect((await callApi(emulator.app, 'PUT', { body: group('a') })).status).toBe(503);
    emulator.setFaults({});
    expect((await callApi(emulator.app, 'PUT', { body: group('a') })).status).toBe(200);
  });

  it('adds latency before answering', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    try {
      const emulator = createEmulator({ faults: { latencyMs: 50 } });
      let settled = false;
      const pending = callApi(emulator.app, 'GET', { body: group('a') }).then((result) => {
        settled = true;
        return result;
      });
      await vi.advanceTimersByTimeAsync(49);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect((await pending).status).toBe(200);
    } finally {
      vi.useRealTimers();
    }
  });

  it('setFaults refuses bad settings with a TypeError', () => {
    const emulator = createEmulator();
    expect(() => emulator.setFaults({ latencyMs: -1 })).toThrow(TypeError);
  });
});

describe('drawFault', () => {
  it('draws once, first match wins in the order drop, 5xx, 429, failure, malformed', () => {
    const settings = { dropRate: 0.1, serverErrorRate: 0.1, rateLimitRate: 0.1, failureRate: 0.1, malformedRate: 0.1 };
    expect(drawFault(settings, 'rotate', () => 0.05)).toBe('drop');
    expect(drawFault(settings, 'rotate', () => 0.15)).toBe('serverError');
    expect(drawFault(settings, 'rotate', () => 0.25)).toBe('rateLimit');
    expect(drawFault(settings, 'rotate', () => 0.35)).toBe('failure');
    expect(drawFault(settings, 'rotate', () => 0.45)).toBe('malformed');
    expect(drawFault(settings, 'rotate', () => 0.55)).toBeUndefined();
    expect(drawFault({ dropRate: 1, serverErrorRate: 1 }, 'update', () => 0.99)).toBe('drop');
    expect(drawFault({ dropRate: 1, operations: ['update'] }, 'rotate', () => 0)).toBeUndefined();
    expect(drawFault({}, 'rotate', () => 0)).toBeUndefined();
  });
});

describe('parseFaultSettings', () => {
  it.each([
    [null],
    [[]],
    [{ dropRate: -0.1 }],
    [{ dropRate: 1.1 }],
    [{ dropRate: '0.5' }],
    [{ failureRate: Number.NaN }],
    [{ latencyMs: 1.5 }],
    [{ latencyMs: 60_001 }],
    [{ retryAfterSeconds: -1 }],
    [{ operations: 'rotate' }],
    [{ operations: ['delete'] }],
    [{ unknown: 1 }],
  ])('refuses %j', (value) => {
    expect(() => parseFaultSettings(value)).toThrow(TypeError);
  });
});
