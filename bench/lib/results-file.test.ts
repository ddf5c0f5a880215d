import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendRun, HISTORY_TITLE, HistoryFormatError, parseHistory, renderRunSection } from './history.js';
import { compareRowIds, currentFigures, renderResults, RESULTS_MARKER } from './report.js';
import { regenerateReport, writeRun } from './results-file.js';
import type { Row } from './row.js';
import type { RunRecord } from './run-record.js';

const row = (id: string, ours: string, result: Row['result'] = 'pass'): Row => ({
  id,
  metric: `metric of ${id}`,
  kind: 'fixed target',
  ours,
  baseline: 'b',
  ratio: '1.00×',
  target: 't',
  result,
});

const record = (overrides: Partial<RunRecord> = {}): RunRecord => ({
  label: 'Quiet run',
  date: '2026-12-02T01:00:00.000Z',
  commit: 'abc1234',
  mode: 'full',
  only: [],
  machine: '2 CPUs (nproc), test CPU',
  loadStart: 1.5,
  loadEnd: 2.5,
  seconds: 12.3,
  passes: { size: 2, browser: 10 },
  rows: [row('1a', '9,000 B'), row('4m', 'min 1 / med 2 / max 3 ms', 'miss')],
  series: [{ key: 'ttd 4m ours', unit: 'ms', values: [1, 2, 3] }],
  ...overrides,
});

/** A hand-written section of the old RESULTS.md: the bench's table and footer, no record. */
const LEGACY = `${HISTORY_TITLE}

A hand-written summary that must survive.

## Run 1 (commit ee9e402, shared machine)

| #   | metric | kind | ours | baseline | ratio | target | result |
| --- | ------ | ---- | ---- | -------- | ----- | ------ | ------ |
| 1a  | size   | fixed target | 10,241 B | budget | 1.00× | ≤ 1.00× | miss |
| 2a  | cpu \\| pipe | ratio (same run) | 106 µs | 80 µs | 0.75× | ≥ 0.70× | pass |

Mode: full. Ran in 532.9 s on 2 CPUs (nproc), AMD EPYC, Node v20.20.2, linux, load average at start 19.23 19.02 17.90, 2026-11-23T11:45:00.944Z; load average at the end 12.40 18.09 18.22.

## Size rows, quick (main at a7c99d2, \`npm run bench:quick\`, 2026-12-01)

| #   | ours | ceiling (enforced) | target (reported) | result |
| --- | ---- | ------------------ | ----------------- | ------ |
| 1a  | 9,999 B | 10,000 B | 9,216 B | miss by 783 B |
| 2a  | 99 µs | - | - | pass |
`;

describe('parseHistory', () => {
  it("reads a hand-written section's table, footer and heading", () => {
    const [run1, sizes] = parseHistory(LEGACY);
    expect(run1).toMatchObject({ index: 1, commit: 'ee9e402', mode: 'full', date: '2026-11-23T11:45:00.944Z', loadStart: 19.23, loadEnd: 12.4 });
    expect(run1!.rows.map((r) => [r.id, r.ours, r.result])).toEqual([
      ['1a', '10,241 B', 'miss'],
      ['2a', '106 µs', 'pass'],
    ]);
    expect(run1!.rows[1]!.metric).toBe('cpu | pipe');
    expect(sizes).toMatchObject({ mode: 'quick', commit: 'a7c99d2', date: '2026-12-01' });
    expect(sizes!.rows[0]).toMatchObject({ id: '1a', ours: '9,999 B', baseline: '10,000 B', target: '9,216 B', result: 'miss' });
  });

  it('reads back a section the bench wrote, record and all', () => {
    const text = appendRun(LEGACY, renderRunSection(record()));
    const runs = parseHistory(text);
    expect(runs).toHaveLength(3);
    expect(runs[2]!.record).toEqual(record());
    expect(text.startsWith(LEGACY.trimEnd())).toBe(true);
  });

  it('keeps a record whose text holds --> or < from ending its comment', () => {
    const tricky = record({ rows: [row('1a', 'a --> b <script>')] });
    const text = appendRun('', renderRunSection(tricky));
    const comment = text.split('\n').find((line) => line.startsWith('<!-- bench-run '))!;
    expect(comment.match(/-->/g)).toHaveLength(1);
    expect(comment).not.toContain('<script');
    expect(parseHistory(text)[0]!.record!.rows[0]!.ours).toBe('a --> b <script>');
  });

  it('ignores headings inside code fences', () => {
    const runs = parseHistory(`${HISTORY_TITLE}\n\n## A\n\n\`\`\`\n## not a run\n\`\`\`\n`);
    expect(runs.map((r) => r.heading)).toEqual(['A']);
  });

  it.each([
    ['a file cut in its record', (text: string) => text.slice(0, text.lastIndexOf('"series"')), /line \d+: .*cut off/],
    ['a record that is not JSON', (text: string) => text.replace('<!-- bench-run {', '<!-- bench-run {{'), /unreadable/],
    ['a record with a field changed', (text: string) => text.replace('"mode":"full"', '"mode":"fast"'), /mode is neither full nor quick/],
    ['a record with a row whose result is unknown', (text: string) => text.replace('"result":"miss"', '"result":"great"'), /rows\[1\]\.result/],
    ['a record that is a list', (text: string) => text.replace(/<!-- bench-run .* -->/, '<!-- bench-run [] -->'), /not an object/],
    ['a file that lost its title', (text: string) => text.slice(HISTORY_TITLE.length + 1), /line 1: does not start with/],
  ])('refuses %s with the line and what is wrong', (_, damage, message) => {
    const good = appendRun(LEGACY, renderRunSection(record()));
    expect(() => parseHistory(damage(good), 'HISTORY.md')).toThrow(HistoryFormatError);
    expect(() => parseHistory(damage(good), 'HISTORY.md')).toThrow(message);
  });

  it('reads an empty file as no runs, and binary junk as not a history', () => {
    expect(parseHistory('')).toEqual([]);
    expect(() => parseHistory('\u0000\u0001PK\u0003')).toThrow(HistoryFormatError);
  });
});

describe('currentFigures and renderResults', () => {
  it("takes each row's latest full run, a quick run's size rows, and skips figures a run could not make", () => {
    const runs = parseHistory(
      [
        renderRunSection(
          record({ label: 'old', date: '2026-12-01T00:00:00.000Z', rows: [row('1a', 'old size'), row('4m', 'old ttd'), row('12a', 'old 12a')] }),
        ),
        renderRunSection(record({ label: 'quick', mode: 'quick', rows: [row('1a', 'quick size'), row('4m', 'quick ttd', 'not judged')] })),
        renderRunSection(record({ label: 'broken', rows: [row('12a', 'n/a (redis-server not installed)', 'n/a')] })),
      ].reduce((text, section) => appendRun(text, section), ''),
    );
    const current = currentFigures(runs);
    expect(current.map(({ row: r, run }) => [r.id, r.ours, run.heading.split(' ')[0]])).toEqual([
      ['1a', 'quick size', 'quick'],
      ['4m', 'old ttd', 'old'],
      ['12a', 'old 12a', 'old'],
    ]);
    const text = renderResults(runs, [{ file: 'plots/x.svg', title: 'X', run: runs[1]! }]);
    expect(text).toContain(RESULTS_MARKER);
    expect(text).toContain('| 12a | metric of 12a | old 12a |');
    expect(text).toContain('H1 · 2026-12-01 · abc1234 · load 1.5→2.5');
    expect(text).toContain('[X](plots/x.svg) (from H2 · 2026-12-02 · abc1234 · load 1.5→2.5, a quick run)');
    expect(text).toContain('3 rows: 3 pass, 0 miss');
  });

  it('orders row ids by number, then by the rest', () => {
    expect(['10a', '4m-firefox', '1b', '4m', '2a', '11b', '1a', 'x'].sort(compareRowIds)).toEqual(['1a', '1b', '2a', '4m', '4m-firefox', '10a', '11b', 'x']);
  });
});

describe('writeRun and regenerateReport (files)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));
  const files = () => ({ dir, spillDir: join(dir, '.tmp') });

  it('appends to HISTORY.md, makes RESULTS.md and the plots, and never drops what was there', () => {
    writeFileSync(join(dir, 'HISTORY.md'), LEGACY);
    writeRun(record(), ['a note'], files());
    const history = readFileSync(join(dir, 'HISTORY.md'), 'utf8');
    expect(history.startsWith(LEGACY.trimEnd())).toBe(true);
    expect(history).toContain('a note');
    expect(readFileSync(join(dir, 'RESULTS.md'), 'utf8')).toContain('| 4m | metric of 4m | min 1 / med 2 / max 3 ms |');
    expect(readFileSync(join(dir, 'plots', 'time-to-dashboard.svg'), 'utf8')).toMatch(/^<svg /);
    writeRun(record({ date: '2026-12-02T02:00:00.000Z' }), [], files());
    expect(parseHistory(readFileSync(join(dir, 'HISTORY.md'), 'utf8'))).toHaveLength(4);
  });

  it('on a damaged history writes nothing, keeps the run in the spill folder and says where', () => {
    const damaged = appendRun(LEGACY, renderRunSection(record())).slice(0, -40);
    writeFileSync(join(dir, 'HISTORY.md'), damaged);
    expect(() => writeRun(record({ date: '2026-12-02T03:00:00.000Z' }), [], files())).toThrow(
      /cut off.*This run is kept in .*unsaved-run-2026-12-02T03-00-00-000Z\.md/s,
    );
    expect(readFileSync(join(dir, 'HISTORY.md'), 'utf8')).toBe(damaged);
    expect(existsSync(join(dir, 'RESULTS.md'))).toBe(false);
    const [spilled] = readdirSync(join(dir, '.tmp'));
    expect(readFileSync(join(dir, '.tmp', spilled!), 'utf8')).toContain('## Quiet run');
  });

  it('does not overwrite a RESULTS.md it did not write', () => {
    writeFileSync(join(dir, 'RESULTS.md'), '# Benchmark results\n\nHand-written.\n');
    expect(() => writeRun(record(), [], files())).toThrow(/not written by the bench/);
    expect(readFileSync(join(dir, 'RESULTS.md'), 'utf8')).toBe('# Benchmark results\n\nHand-written.\n');
    expect(existsSync(join(dir, 'HISTORY.md'))).toBe(false);
  });

  it('remakes a truncated RESULTS.md of its own from the history', () => {
    writeRun(record(), [], files());
    const whole = readFileSync(join(dir, 'RESULTS.md'), 'utf8');
    writeFileSync(join(dir, 'RESULTS.md'), whole.slice(0, 300));
    regenerateReport(files());
    expect(readFileSync(join(dir, 'RESULTS.md'), 'utf8')).toBe(whole);
  });

  it('reads the real bench/HISTORY.md and keeps its hand-written runs', () => {
    const real = readFileSync(new URL('../HISTORY.md', import.meta.url), 'utf8');
    const runs = parseHistory(real);
    expect(runs.length).toBeGreaterThan(40);
    expect(runs[0]!.heading).toMatch(/^Run 1 \(commit ee9e402/);
    expect(currentFigures(runs).some(({ row: r }) => r.id === '9a')).toBe(true);
  });
});
