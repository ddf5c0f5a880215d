import { readFileSync } from 'node:fs';
import { seededRandom } from '../../packages/emulator/src/dashboard-host/sample-data/seeded-random.js';
import { median } from '../lib/stats.js';
import type { PageLoad } from './time-to-dashboard.js';

/*
 * How far a ratio of medians moves with the number of loads, from a `BENCH_ENGINE_DUMP` file:
 *
 *   node bench/dist/bench/browser/median-spread.js <dump.jsonl> [loads=40] [draws=4000]
 *
 * For each pass in the file and each page against `baseline`: the ratio of the pass's medians,
 * and the 5th / 50th / 95th percentile of that ratio over `draws` resamples of `loads` loads of
 * each page (drawn with replacement from the pass; the emulator's mulberry32, fixed seed): the spread a run of that many
 * loads has on the machine the pass ran on. `control` (the baseline loaded again) shows it with
 * nothing different.
 */

/** The 5th, 50th and 95th percentile of median(ours) ÷ median(baseline) over `draws` resamples of `loads` each. */
export function ratioSpread(
  ours: readonly number[],
  baseline: readonly number[],
  loads: number,
  draws: number,
  random = seededRandom(21),
): [number, number, number] {
  if (!ours.length || !baseline.length) throw new Error('ratioSpread: no loads');
  const draw = (values: readonly number[]) => median(Array.from({ length: loads }, () => values[Math.floor(random() * values.length)]!));
  const ratios = Array.from({ length: draws }, () => draw(ours) / draw(baseline)).sort((a, b) => a - b);
  const at = (q: number) => ratios[Math.min(ratios.length - 1, Math.floor(q * ratios.length))]!;
  return [at(0.05), at(0.5), at(0.95)];
}

if (process.argv[1]?.endsWith('median-spread.js')) {
  const [file, loadsArg = '40', drawsArg = '4000'] = process.argv.slice(2);
  if (!file) throw new Error('usage: median-spread.js <dump.jsonl> [loads] [draws]');
  const loads = Number(loadsArg);
  const draws = Number(drawsArg);
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const pass = JSON.parse(line) as { engine: string; pass: string; loads: Record<string, PageLoad[]> };
    const times = Object.fromEntries(Object.entries(pass.loads).map(([page, list]) => [page, list.map((load) => load.ms)]));
    const baseline = times.baseline ?? [];
    console.log(
      `${pass.engine} ${pass.pass}: ${baseline.length} loads each; ratio of the medians, and over ${draws} draws of ${loads} loads each: p5 / p50 / p95`,
    );
    for (const [page, ours] of Object.entries(times)) {
      if (page === 'baseline') continue;
      const spread = ratioSpread(ours, baseline, loads, draws)
        .map((value) => value.toFixed(2))
        .join(' / ');
      console.log(`  ${page.padEnd(28)} ${(median(ours) / median(baseline)).toFixed(2)}x   ${loads} loads: ${spread}`);
    }
  }
}
