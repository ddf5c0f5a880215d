import { describe, expect, it } from 'vitest';
import { formatDuration, progressLine, remainingMs, startProgress } from './progress.js';
import { browserSecondsFromCounts, estimatePass } from './estimate.js';
import { appendRun, parseHistory, renderRunSection } from './history.js';
import type { RunRecord } from './run-record.js';

describe('progress', () => {
  it('formats durations as people read them', () => {
    expect(formatDuration(42.4)).toBe('42 s');
    expect(formatDuration(245)).toBe('4 min 05 s');
    expect(formatDuration(3720)).toBe('1 h 02 min');
    expect(formatDuration(Number.NaN)).toBe('?');
    expect(formatDuration(-1)).toBe('?');
  });

  it('estimates what is left at the pace so far', () => {
    expect(remainingMs(10, 40, 20_000)).toBe(60_000);
    expect(remainingMs(0, 40, 20_000)).toBeNaN();
    expect(remainingMs(5, 3, 1_000)).toBeNaN();
    expect(progressLine('browser quiet', 12, 150, 41_000)).toBe('bench: browser quiet: run 12 of 150, 41 s elapsed, about 7 min 52 s left');
    expect(progressLine('x', 3, 3, 5_000)).toBe('bench: x: run 3 of 3, 5 s elapsed, done');
  });

  it('prints the first run, then at most once per interval, and the last', () => {
    let clock = 0;
    const lines: string[] = [];
    const ticker = startProgress('p', 5, { write: (line) => lines.push(line), now: () => clock, everyMs: 10_000 });
    for (const at of [1_000, 2_000, 12_000, 13_000, 14_000]) {
      clock = at;
      ticker.tick();
    }
    expect(lines.map((line) => /run (\d) of/.exec(line)![1])).toEqual(['1', '3', '5']);
  });
});

describe('estimatePass', () => {
  const record = (mode: 'full' | 'quick', passes: Record<string, number>, date: string): RunRecord => ({
    label: 'r',
    date,
    commit: 'abc1234',
    mode,
    only: [],
    machine: 'm',
    loadStart: 1,
    loadEnd: 1,
    seconds: 1,
    passes,
    rows: [],
    series: [],
  });
  it("takes the latest run of the same mode's duration of that bench", () => {
    const history = parseHistory(
      [
        record('full', { browser: 1200 }, '2026-12-01T00:00:00.000Z'),
        record('quick', { browser: 30 }, '2026-12-02T00:00:00.000Z'),
        record('full', { size: 3 }, '2026-12-03T00:00:00.000Z'),
      ].reduce((text, r) => appendRun(text, renderRunSection(r)), ''),
    );
    expect(estimatePass('browser', false, history)).toBe('about 20 min 00 s, as this bench took in the latest full run written, H1 of 2026-12-01');
    expect(estimatePass('browser', true, history)).toMatch(/^about 30 s, .* H2 /);
  });
  it('falls back to the count of page loads for the browser pass, and says nothing for others', () => {
    expect(estimatePass('browser', false, [])).toMatch(/^about \d+ min \d\d s from its count of page loads/);
    expect(estimatePass('fleet', false, [])).toBeUndefined();
    expect(browserSecondsFromCounts(true)).toBeLessThan(browserSecondsFromCounts(false));
  });
});
