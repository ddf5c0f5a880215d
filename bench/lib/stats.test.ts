import { describe, expect, it } from 'vitest';
import { median, percentile, ratio } from './stats.js';

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([9, 1, 5])).toBe(5);
  });

  it('averages the two middle values of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('ignores values that are not finite and is NaN when nothing is left', () => {
    expect(median([Number.NaN, 7, Number.POSITIVE_INFINITY])).toBe(7);
    expect(median([])).toBeNaN();
    expect(median([Number.NaN])).toBeNaN();
  });

  it('does not reorder its input', () => {
    const values = [3, 1, 2];
    median(values);
    expect(values).toEqual([3, 1, 2]);
  });
});

describe('percentile', () => {
  it('interpolates between ranks', () => {
    expect(percentile([10, 20, 30, 40, 50], 0)).toBe(10);
    expect(percentile([10, 20, 30, 40, 50], 100)).toBe(50);
    expect(percentile([10, 20, 30, 40, 50], 25)).toBe(20);
    expect(percentile([10, 20], 99)).toBeCloseTo(19.9);
  });

  it.each([-1, 101, Number.NaN])('refuses percentile %s', (p) => {
    expect(() => percentile([1], p)).toThrow(RangeError);
  });
});

describe('ratio', () => {
  it('divides by the baseline', () => {
    expect(ratio(75, 100)).toBe(0.75);
  });

  it.each([
    [1, 0],
    [Number.NaN, 1],
    [1, Number.NaN],
    [Number.POSITIVE_INFINITY, 1],
  ])('is NaN for %s / %s rather than a misleading number', (value, baseline) => {
    expect(ratio(value, baseline)).toBeNaN();
  });
});
