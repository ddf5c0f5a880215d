import { describe, expect, it } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import { slowFirstSequencer } from './slow-first-sequencer.js';

const ROOT = '/repo';

/** A specification as the sequencer reads one: its project's name and group, and its file. */
function spec(project: string, groupOrder: number, file: string): TestSpecification {
  return { project: { name: project, config: { sequence: { groupOrder }, isolate: true } }, moduleId: `${ROOT}/${file}` } as unknown as TestSpecification;
}

/** The sequencer over a results cache that knows the `known` files (a run after a first one). */
function sorter(slowFirst: string[], known: string[] = []) {
  const ctx = {
    config: { root: ROOT },
    cache: {
      getFileTestResults: (key: string) => (known.some((file) => key.endsWith(`:${file}`)) ? { duration: 1, failed: false } : undefined),
      getFileStats: () => undefined,
    },
  } as unknown as Vitest;
  const Sequencer = slowFirstSequencer(slowFirst);
  return new Sequencer(ctx);
}

const files = (specs: TestSpecification[]) => specs.map((s) => `${s.project.name}:${s.moduleId.slice(ROOT.length + 1)}`);

describe('slowFirstSequencer', () => {
  const specs = [
    spec('e2e', 1, 'e2e/short.test.ts'),
    spec('e2e', 1, 'e2e/long.test.ts'),
    spec('element', 0, 'element/a.test.ts'),
    spec('node', 0, 'node/b.test.ts'),
    spec('node', 0, 'node/faults.test.ts'),
    spec('superset', 0, 'superset/vendor.test.ts'),
  ];

  it("starts the named files first in their group, whatever their project, in the order named, the rest in vitest's order", async () => {
    const sorted = await sorter(['e2e/long.test.ts', 'node/faults.test.ts', 'superset/vendor.test.ts']).sort(specs);
    expect(files(sorted)).toEqual([
      'node:node/faults.test.ts',
      'superset:superset/vendor.test.ts',
      'element:element/a.test.ts',
      'node:node/b.test.ts',
      'e2e:e2e/long.test.ts',
      'e2e:e2e/short.test.ts',
    ]);
  });

  it("keeps vitest's order for files whose durations the results cache knows, and names that match no file change nothing", async () => {
    const known = ['e2e/long.test.ts', 'node/faults.test.ts', 'superset/vendor.test.ts'];
    const base = await sorter([]).sort(specs);
    expect(files(await sorter(known, known).sort(specs))).toEqual(files(base));
    expect(files(await sorter(['nothing/here.test.ts']).sort(specs))).toEqual(files(base));
    // A group never starts before the one ahead of it: every group-0 file comes first.
    expect(
      files(base)
        .slice(0, 4)
        .every((name) => !name.startsWith('e2e:')),
    ).toBe(true);
  });
});
