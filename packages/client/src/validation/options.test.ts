import { describe, expect, it } from 'vitest';
import { resolveOptions } from './options.js';

const base = { baseUrl: 'http://127.0.0.1:8790', apiToken: 'key' };

describe('resolveOptions', () => {
  it('defaults as documented', () => {
    expect(resolveOptions(base)).toMatchObject({
      url: 'http://127.0.0.1:8790/api/user',
      timeoutMs: 3_000,
      deadlineMs: 6_000,
      maxAttempts: 4,
      maxInFlight: 8,
      baseMs: 200,
      maxMs: 5_000,
    });
  });

  it.each([
    ['https://vendor.example.com', 'https://vendor.example.com/api/user'],
    ['https://vendor.example.com/', 'https://vendor.example.com/api/user'],
    ['https://vendor.example.com/v1//', 'https://vendor.example.com/v1/api/user'],
    ['HTTP://Vendor.Example.com:80', 'http://vendor.example.com/api/user'],
  ])('appends /api/user to %s', (baseUrl, url) => {
    expect(resolveOptions({ ...base, baseUrl }).url).toBe(url);
  });

  it.each([
    [null, /options/],
    ['x', /options/],
    [{ ...base, baseUrl: undefined }, /"baseUrl"/],
    [{ ...base, baseUrl: '' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'vendor.example.com' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'ftp://vendor.example.com' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'javascript:alert(1)' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'https://user:pw@vendor.example.com' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'https://vendor.example.com/?a=1' }, /"baseUrl"/],
    [{ ...base, baseUrl: 'https://vendor.example.com/#x' }, /"baseUrl"/],
    [{ ...base, apiToken: '' }, /"apiToken"/],
    [{ ...base, apiToken: 42 }, /"apiToken"/],
    [{ ...base, apiToken: 'key\r\nX-Injected: 1' }, /"apiToken"/],
    [{ ...base, apiToken: 'two words' }, /"apiToken"/],
    [{ ...base, timeoutMs: 0 }, /"timeoutMs"/],
    [{ ...base, timeoutMs: Number.NaN }, /"timeoutMs"/],
    [{ ...base, timeoutMs: '100' }, /"timeoutMs"/],
    [{ ...base, deadlineMs: -1 }, /"deadlineMs"/],
    [{ ...base, maxAttempts: 0 }, /"maxAttempts"/],
    [{ ...base, maxAttempts: 1.5 }, /"maxAttempts"/],
    [{ ...base, maxAttempts: 1000 }, /"maxAttempts"/],
    [{ ...base, maxInFlight: 0 }, /"maxInFlight"/],
    [{ ...base, backoff: 5 }, /"backoff"/],
    [{ ...base, backoff: { baseMs: -1 } }, /"backoff.baseMs"/],
    [{ ...base, backoff: { baseMs: 500, maxMs: 100 } }, /"backoff.maxMs"/],
    [{ ...base, transport: {} }, /"transport"/],
    [{ ...base, random: 0.5 }, /"random"/],
    [{ ...base, sleep: 'x' }, /"sleep"/],
    [{ ...base, now: Date.now() }, /"now"/],
  ])('refuses %j with a TypeError naming the option', (options, message) => {
    expect(() => resolveOptions(options)).toThrow(TypeError);
    expect(() => resolveOptions(options)).toThrow(message);
  });

  it('never echoes the API token it refuses', () => {
    const apiToken = 'very-secret\nvalue';
    try {
      resolveOptions({ ...base, apiToken });
    } catch (error) {
      expect(String(error)).not.toContain('very-secret');
      return;
    }
    throw new Error('expected a TypeError');
  });
});
