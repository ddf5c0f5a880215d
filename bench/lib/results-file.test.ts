import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mergeResults } from './results-file.js';

describe('mergeResults', () => {
  it('adds a labelled run after the ones already published, and replaces only the run of the same label', () => {
    const first = mergeResults('', 'Intro.', 'Loaded run', '| table 1 |');
    expect(first).toBe('# Benchmark results\n\nIntro.\n\n## Loaded run\n\n| table 1 |\n');
    const both = mergeResults(first, 'Intro 2.', 'Quiet run', '| table 2 |');
    expect(both).toBe('# Benchmark results\n\nIntro 2.\n\n## Loaded run\n\n| table 1 |\n\n## Quiet run\n\n| table 2 |\n');
    const replaced = mergeResults(both, 'Intro 2.', 'Loaded run', '| table 3 |');
    expect(replaced).toBe('# Benchmark results\n\nIntro 2.\n\n## Loaded run\n\n| table 3 |\n\n## Quiet run\n\n| table 2 |\n');
  });

  it('drops an old file without sections (the single-run format) but its title and preamble', () => {
    expect(mergeResults('# Benchmark results\n\nold text\n\n| old |\n', 'New.', 'Run', 'x')).toBe('# Benchmark results\n\nNew.\n\n## Run\n\nx\n');
  });

  it('keeps the hand-written paragraphs after the generated one, replacing only the generated one (RESULTS.md lost its judged summary)', () => {
    const file = '# Benchmark results\n\nOld generated.\n\n**Judged rows:** 4m 1.05x, 4n 1.08x.\n\nA second note,\nover two lines.\n\n## Run 1\n\n| t1 |\n';
    const written = mergeResults(file, 'New generated.', 'Run 2', '| t2 |');
    expect(written).toBe(
      '# Benchmark results\n\nNew generated.\n\n**Judged rows:** 4m 1.05x, 4n 1.08x.\n\nA second note,\nover two lines.\n\n## Run 1\n\n| t1 |\n\n## Run 2\n\n| t2 |\n',
    );
    // Written again: the same file, nothing doubled or lost.
    expect(mergeResults(written, 'New generated.', 'Run 2', '| t2 |')).toBe(written);
  });

  it('keeps the hand-written summary of the real bench/RESULTS.md when a run is written', () => {
    const real = readFileSync(new URL('../RESULTS.md', import.meta.url), 'utf8');
    const summary = real.split('\n').find((line) => line.startsWith('**Time to dashboard, the judged rows'));
    expect(summary).toBeDefined();
    const written = mergeResults(real, 'Generated.', 'A new run', '| x |');
    expect(written).toContain(`\n\n${summary}\n\n`);
    expect(written.indexOf(summary!)).toBeLessThan(written.indexOf('## Run 1'));
  });
});
