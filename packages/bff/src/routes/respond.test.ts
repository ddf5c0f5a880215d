import { describe, expect, it } from 'vitest';
import { tokenJson } from './respond.js';

describe('tokenJson', () => {
  it.each([
    ['a plain token', 'ugt-1-abc', 1_790_000_000_000, 1_789_999_990_000],
    ['a token with quotes, backslashes and controls', 'a"b\\c\n\u0001</script>', null, 1],
    ['unicode and a lone surrogate', 'é\u2028\ud800', 0, -0],
    ['fractions and non-finite numbers', 'x', 1.5, Number.NaN],
    ['infinity', 'x', Number.POSITIVE_INFINITY, 2 ** 53],
  ])('writes exactly what JSON.stringify writes for %s', (_, token, expiresAt, serverTime) => {
    const text = tokenJson(token, expiresAt, serverTime);
    expect(text).toBe(JSON.stringify({ token, expiresAt, serverTime }));
    expect(JSON.parse(text).token).toBe(token);
  });
});
