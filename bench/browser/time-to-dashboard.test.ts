import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseLoadedMessage, takeTurns } from './time-to-dashboard.js';

describe('parseLoadedMessage', () => {
  it('reads the time and the marks the host page logs', () => {
    expect(parseLoadedMessage('bench:loaded 412.5 {"defined":120.1,"frameStart":130}')).toEqual({ ms: 412.5, marks: { defined: 120.1, frameStart: 130 } });
  });

  it('keeps the time when the marks are missing or broken', () => {
    expect(parseLoadedMessage('bench:loaded 99')).toEqual({ ms: 99, marks: {} });
    expect(parseLoadedMessage('bench:loaded 99 {oops')).toEqual({ ms: 99, marks: {} });
  });

  it('refuses a line without a positive time, or another message', () => {
    expect(parseLoadedMessage('bench:loaded NaN {}')).toBeUndefined();
    expect(parseLoadedMessage('bench:loaded 0')).toBeUndefined();
    expect(parseLoadedMessage('bench:loadedX 12')).toBeUndefined();
    expect(parseLoadedMessage('something else')).toBeUndefined();
  });
});

describe('takeTurns', () => {
  // Its progress lines (bench/lib/progress.ts, to stderr) are for a person at `npm run bench`, not for `npm test`'s quiet run.
  beforeEach(() => void vi.spyOn(process.stderr, 'write').mockImplementation(() => true));
  afterEach(() => vi.restoreAllMocks());

  const recorder = () => {
    const order: string[] = [];
    let at = 0;
    return { order, once: async (key: string) => (order.push(key), { ms: ++at, marks: {} }) };
  };

  it('loads each page once unmeasured, then the pages take turns with the order rotating every round', async () => {
    const { order, once } = recorder();
    const results = await takeTurns(['a', 'b', 'c'], 3, once);
    expect(order).toEqual(['a', 'b', 'c', 'a', 'b', 'c', 'b', 'c', 'a', 'c', 'a', 'b']);
    // The warm-up loads (times 1-3) are in no result.
    expect(results).toEqual({
      a: [
        { ms: 4, marks: {} },
        { ms: 9, marks: {} },
        { ms: 11, marks: {} },
      ],
      b: [
        { ms: 5, marks: {} },
        { ms: 7, marks: {} },
        { ms: 12, marks: {} },
      ],
      c: [
        { ms: 6, marks: {} },
        { ms: 8, marks: {} },
        { ms: 10, marks: {} },
      ],
    });
  });

  it('leaves the warm-up out when asked (quick runs)', async () => {
    const { order, once } = recorder();
    const results = await takeTurns(['a', 'b'], 1, once, false);
    expect(order).toEqual(['a', 'b']);
    expect(results).toEqual({ a: [{ ms: 1, marks: {} }], b: [{ ms: 2, marks: {} }] });
  });

  it('balanced: every other block of rounds in reverse, so each page follows each other page equally often (three pages)', async () => {
    const { order, once } = recorder();
    await takeTurns(['a', 'b', 'c'], 6, once, false, 'balanced');
    expect(order.join('')).toBe('abcbcacab' + 'cbabacacb');
    const follows = new Map<string, number>();
    for (let index = 1; index < order.length; index++) {
      const pair = `${order[index - 1]}${order[index]}`;
      follows.set(pair, (follows.get(pair) ?? 0) + 1);
    }
    // Each ordered pair of different pages: 2 or 3 times in 17 transitions (none 5 times, as one direction gives).
    for (const pair of ['ab', 'ba', 'ac', 'ca', 'bc', 'cb']) expect(follows.get(pair)).toBeGreaterThanOrEqual(2);
  });

  it('stops at the first failed load', async () => {
    await expect(takeTurns(['a'], 2, async () => Promise.reject(new Error('no dashboard')))).rejects.toThrow('no dashboard');
  });
});
