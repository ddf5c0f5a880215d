import { describe, expect, it, vi } from 'vitest';
import { backoffDelay, parseRetryAfter, withTimeout } from './retry.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2030-01-01T00:00:00Z');
  it.each([
    ['0', 0],
    ['5', 5000],
    [' 12 ', 12_000],
    ['Tue, 01 Jan 2030 00:00:30 GMT', 30_000],
    ['Mon, 31 Dec 2029 23:59:00 GMT', 0],
  ])('reads %j as %i ms', (value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });

  it.each([
    ['999999999', '999999999', 86_400_000],
    ['86401', '86401', 86_400_000],
    ['a date a year ahead', 'Tue, 01 Jan 2031 00:00:00 GMT', 86_400_000],
    ['400 nines', '9'.repeat(400), 86_400_000],
  ])('caps %s, far in the future, at a day rather than ignoring it', (_label, value, ms) => {
    expect(parseRetryAfter(value, now)).toBe(ms);
  });
  it.each([
    undefined,
    null,
    '',
    '  ',
    '-1',
    '1.5',
    'soon',
    '1e3',
    '1e400',
    'Infinity',
    '2030-01-01',
    'Tue, 01 Jan 2030 00:00:30 PST',
    'Tue, 99 Jan 2030 00:00:30 GMT',
  ])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});

describe('backoffDelay', () => {
  it('doubles the ceiling per retry up to maxMs', () => {
    const top = () => 0.999_999;
    expect([1, 2, 3, 4, 5].map((n) => backoffDelay(n, 100, 1000, top))).toEqual([99, 199, 399, 799, 999]);
  });

  it('is full jitter: random 0 waits nothing', () => {
    expect(backoffDelay(3, 100, 1000, () => 0)).toBe(0);
  });

  it.each([Number.NaN, -1, 2, Number.POSITIVE_INFINITY])('survives a broken random returning %s', (r) => {
    const delay = backoffDelay(2, 100, 1000, () => r);
    expect(delay).toBeGreaterThanOrEqual(0);
    expect(delay).toBeLessThanOrEqual(200);
  });

  it('does not overflow for huge retry counts', () => {
    expect(backoffDelay(10_000, 100, 5000, () => 0.5)).toBe(2500);
  });
});

describe('withTimeout', () => {
  it('settles like the work when it finishes in time, and leaves no timer behind', async () => {
    vi.useFakeTimers();
    try {
      await expect(
        withTimeout(
          () => Promise.resolve(7),
          1000,
          () => new Error('late'),
        ),
      ).resolves.toBe(7);
      await expect(
        withTimeout(
          () => Promise.reject(new Error('own')),
          1000,
          () => new Error('late'),
        ),
      ).rejects.toThrow('own');
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('rejects with the timeout error after ms and aborts the signal the work was given', async () => {
    vi.useFakeTimers();
    try {
      let signal: AbortSignal | undefined;
      const pending = withTimeout(
        (s) => ((signal = s), new Promise<never>(() => {})),
        1000,
        () => new Error('late'),
      );
      const settled = pending.catch((error: unknown) => error);
      await vi.advanceTimersByTimeAsync(999);
      expect(signal!.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await settled).toEqual(new Error('late'));
      expect(signal!.aborted).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
