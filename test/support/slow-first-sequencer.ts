import { relative } from 'node:path';
import { BaseSequencer, type TestSequencerConstructor, type TestSpecification } from 'vitest/node';

/**
 * Vitest's own order, except where it knows nothing of a file's duration (a fresh clone, as CI
 * runs: no results cache) and orders by size, larger first: there the files named in `slowFirst`
 * start first, in the order given, ahead of every other file of their group (`sequence.groupOrder`),
 * whatever their project. With two files at a time, a long file that starts last is the whole run's
 * tail: a fresh-clone run spent its last ~100 s in the smallest e2e file,
 * test/e2e/superset-restart.test.ts, alone; and vitest's base order runs a group's projects one
 * after another (by name), so the superset project's 35 s file started after the node project's
 * last one, although both projects' files share the group's workers.
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
      // Within a group, the pool takes files in this order onto its workers, whatever their
      // project; a group's files never start before the groups ahead of it have finished.
      const group = (spec: TestSpecification) => spec.project.config.sequence.groupOrder;
      return sorted
        .map((spec, i) => ({ spec, i, rank: rank(spec) }))
        .sort((a, b) => group(a.spec) - group(b.spec) || a.rank - b.rank || a.i - b.i)
        .map(({ spec }) => spec);
    }
  };
}
