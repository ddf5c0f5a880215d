import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run examples/nextjs, which the global setup builds in the background: they run
 * last, so the build overlaps the other files instead of being waited for by the first one (the
 * default order, by size or by the last run's durations, could put one of them first).
 */
const NEEDS_NEXT_BUILD = ['test/packaging/examples.test.ts', 'test/topology/examples.test.ts', 'test/topology/nextjs-handler.test.ts'];

export class PackagingSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const needsNext = (file: TestSpecification) => NEEDS_NEXT_BUILD.some((path) => file.moduleId.endsWith(path));
    return [...sorted.filter((file) => !needsNext(file)), ...sorted.filter(needsNext)];
  }
}
