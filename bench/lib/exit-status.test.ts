import { describe, expect, it } from 'vitest';
import { failureReasons } from './exit-status.js';
import type { Row, Verdict } from './row.js';

const row = (id: string, result: Verdict): Row => ({ id, metric: 'm', kind: 'fixed target', ours: '', baseline: '', ratio: '', target: '', result });

describe('failureReasons', () => {
  it('passes a run whose only misses are timings', () => {
    expect(failureReasons({ rows: [row('1a', 'pass'), row('2a', 'miss'), row('4', 'not judged')], withinBudget: true, strict: true })).toEqual([]);
  });

  it('fails when the element is over the size budget', () => {
    expect(failureReasons({ rows: [row('1a', 'miss')], withinBudget: false, strict: false })).toHaveLength(1);
  });

  it('fails on a row that errored', () => {
    expect(failureReasons({ rows: [row('3a', 'error')], withinBudget: true, strict: false })[0]).toContain('3a');
  });

  it('tolerates rows that could not run locally, but not in CI', () => {
    const rows = [row('1a', 'n/a'), row('3b', 'n/a')];
    expect(failureReasons({ rows, withinBudget: undefined, strict: false })).toEqual([]);
    expect(failureReasons({ rows, withinBudget: undefined, strict: true })[0]).toContain('1a, 3b');
  });
});
