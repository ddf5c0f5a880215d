import { PAGE_FEATURES, parseFeatures } from './variant-page.js';

/** Loads of each page per pass in full runs: as Chromium's 4m/4n pass (a median of 15 moves by about ±0.1× here). */
export const FULL_RUNS = 40;

/**
 * What an investigation may change through the environment (the defaults are what full runs
 * and CI use): `BENCH_ENGINE_LOADS` loads of each page per pass (default 40), `BENCH_ENGINE_LOADED=0`
 * leaves the pass under added load out, `BENCH_ENGINE_VARIANTS` adds pages between the baseline
 * and 4m's to the quiet pass (`/variant`, bench/browser/variant-page.ts): `;`-separated sets of
 * features, each `a,b` (the baseline with those added) or `-a,b` (4m's page without them), each
 * its own info row `4v-<engine> <set>`; `BENCH_ENGINE_DUMP=<file>` appends every load of each pass
 * to that file (`dumpLoads`). Throws on a value it cannot use, naming it.
 */
export function engineSettings(env: Record<string, string | undefined> = process.env): { runs: number; loadedPass: boolean; variants: string[] } {
  const loads = env.BENCH_ENGINE_LOADS?.trim();
  const runs = loads ? Number(loads) : FULL_RUNS;
  if (!Number.isInteger(runs) || runs < 1 || runs > 2000) throw new Error(`BENCH_ENGINE_LOADS must be a whole number of loads from 1 to 2000, not "${loads}"`);
  const loaded = env.BENCH_ENGINE_LOADED?.trim();
  if (loaded && loaded !== '0' && loaded !== '1') throw new Error(`BENCH_ENGINE_LOADED must be 0 or 1, not "${loaded}"`);
  const variants = (env.BENCH_ENGINE_VARIANTS ?? '')
    .split(';')
    .map((set) => set.trim())
    .filter(Boolean);
  for (const set of variants) parseFeatures(set.replace(/^-/, ''));
  return { runs, loadedPass: loaded !== '0', variants };
}

/** `/variant`'s `with=` for a set of `engineSettings().variants` (`-a,b`: every feature but those). */
export function variantFeatures(set: string): string {
  if (!set.startsWith('-')) return [...parseFeatures(set)].join(',');
  const left = parseFeatures(set.slice(1));
  return PAGE_FEATURES.filter((feature) => !left.has(feature)).join(',');
}
