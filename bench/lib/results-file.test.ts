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
});
