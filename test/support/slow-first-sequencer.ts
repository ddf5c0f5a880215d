import { relative } from 'node:path';
import { BaseSequencer, type TestSequencerConstructor, type TestSpecification } from 'vitest/node';

/**
 * Vitest's own order, except where it knows nothing of a file's duration (a fresh clone, as CI
 * runs: no results cache) and orders by size, larger first: there the files named in `slowFirst`
 * start first, in the order given, ahead of the rest of their project. With two files at a time, a
 * long file that starts last is the whole run's tail (a fresh-clone run spent its last ~100 s in
 * the smallest e2e file, test/e2e/superset-restart.test.ts, alone).
 *
 * Used as `test.sequence.sequencer` with `slowFirst` from `SLOW_FIRST` (vite.config.ts): only an
 * order of starting; which tests run, and how, is unchanged.
 */
export function slowFirstSequencer(slowFirst: readonly string[]): TestSequencerConstructor {
  return class SlowFirstSequencer extends BaseSequencer {
    override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
      const sorted = await super.sort(files);
      const root = this.ctx.config.root;
      const path = (spec: TestSpecification) => relative(root, spec.moduleId).split('\\').join('/');
      const rank = (spec: TestSpecification) => {
        if (this.ctx.cache.getFileTestResults(`${spec.project.name}:${path(spec)}`)) return Infinity;
        const at = slowFirst.indexOf(path(spec));
        return at < 0 ? Infinity : at;
      };
      // The base order keeps each (group, project) together: reorder within those runs only, stably.
      const runs: TestSpecification[][] = [];
      for (const spec of sorted) {
        const last = runs.at(-1);
        if (last && last[0]!.project === spec.project) last.push(spec);
        else runs.push([spec]);
      }
      return runs.flatMap((run) => run.map((spec, i) => ({ spec, i, rank: rank(spec) })).sort((a, b) => a.rank - b.rank || a.i - b.i)).map(({ spec }) => spec);
    }
  };
}
