import { describe, expect, it } from 'vitest';
import { engineSettings, variantFeatures } from './engine-settings.js';

describe('engineSettings (what an investigation may change through the environment)', () => {
  it('defaults to what full runs use: 40 loads, the loaded pass, no variants', () => {
    expect(engineSettings({})).toEqual({ runs: 40, loadedPass: true, variants: [] });
  });

  it('reads more loads, no loaded pass and the variant sets', () => {
    expect(engineSettings({ BENCH_ENGINE_LOADS: '150', BENCH_ENGINE_LOADED: '0', BENCH_ENGINE_VARIANTS: 'stream; -preconnect ;wrap,attrs;' })).toEqual({
      runs: 150,
      loadedPass: false,
      variants: ['stream', '-preconnect', 'wrap,attrs'],
    });
  });

  it('refuses what it cannot use, naming it', () => {
    expect(() => engineSettings({ BENCH_ENGINE_LOADS: '1e9' })).toThrow('BENCH_ENGINE_LOADS must be a whole number of loads from 1 to 2000, not "1e9"');
    expect(() => engineSettings({ BENCH_ENGINE_LOADS: 'many' })).toThrow('not "many"');
    expect(() => engineSettings({ BENCH_ENGINE_LOADS: '0' })).toThrow('not "0"');
    expect(() => engineSettings({ BENCH_ENGINE_LOADED: 'no' })).toThrow('BENCH_ENGINE_LOADED must be 0 or 1, not "no"');
    expect(() => engineSettings({ BENCH_ENGINE_VARIANTS: 'wrap;prefetch' })).toThrow('unknown page feature(s): prefetch');
  });
});

describe('variantFeatures', () => {
  it("is the set named, or 4m's features without those after a minus", () => {
    expect(variantFeatures('attrs,wrap')).toBe('attrs,wrap');
    expect(variantFeatures('-preconnect')).toBe('stream,headers,loader,wrap,attrs,fragment');
    expect(variantFeatures('-stream,headers')).toBe('preconnect,loader,wrap,attrs,fragment');
  });
});

describe('ratioSpread (bench/browser/median-spread.ts)', () => {
  it('is exactly 1 for identical constant pages, and spreads both ways for the same page resampled', async () => {
    const { ratioSpread } = await import('./median-spread.js');
    expect(ratioSpread([100, 100, 100], [100, 100], 5, 50)).toEqual([1, 1, 1]);
    const page = Array.from({ length: 200 }, (_, index) => 100 + (index % 50) * 4);
    const [low, mid, high] = ratioSpread(page, page, 40, 2000);
    expect(low).toBeLessThan(0.95);
    expect(high).toBeGreaterThan(1.05);
    expect(mid).toBeCloseTo(1, 1);
    expect(() => ratioSpread([], page, 40, 10)).toThrow('no loads');
  });
});
