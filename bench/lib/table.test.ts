import { describe, expect, it } from 'vitest';
import { formatTable } from './table.js';
import { formatBytes, formatMs, formatRate, formatRatio, formatSpread, msValue } from './format.js';
import { NotAvailable, judgeTiming, unavailableRows, type Row } from './row.js';

const row = (overrides: Partial<Row> = {}): Row => ({
  id: '1a',
  metric: 'size',
  kind: 'fixed target',
  ours: '8 KB',
  baseline: '10 KB',
  ratio: '0.80×',
  target: '≤ 10 KB',
  result: 'pass',
  ...overrides,
});

describe('formatTable', () => {
  it('renders a header, a separator and one line per row, all the same width', () => {
    const lines = formatTable([row(), row({ id: '2', metric: 'a much longer metric name' })]).split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^\| #\s+\| metric\s+\| kind\s+\| ours\s+\| baseline \| ratio \| target\s+\| result \|$/);
    expect(lines[1]).toMatch(/^\|( -+ \|)+$/);
    expect(new Set(lines.map((line) => [...line].length)).size).toBe(1);
  });

  it('escapes pipes and line breaks so a reason cannot break the table', () => {
    const table = formatTable([row({ ours: 'n/a (a | b\nc)' })]);
    expect(table).toContain('n/a (a \\| b c)');
    expect(table.split('\n')).toHaveLength(3);
    expect(table.split('\n')[2]?.split(/(?<!\\)\|/)).toHaveLength(10);
  });

  it('renders only the header for no rows', () => {
    expect(formatTable([]).split('\n')).toHaveLength(2);
  });
});

describe('formatters', () => {
  it('formats bytes with separators and KiB', () => {
    expect(formatBytes(10240)).toBe('10,240 B (10.00 KiB)');
  });

  it('formats ratios, milliseconds and rates, with n/a for NaN', () => {
    expect(formatRatio(0.789)).toBe('0.79×');
    expect(formatRatio(Number.NaN)).toBe('n/a');
    expect(formatMs(3.24)).toBe('3.2 ms');
    expect(formatMs(412.4)).toBe('412 ms');
    expect(formatMs(Number.NaN)).toBe('n/a');
    expect(formatRate(12345.6)).toBe('12,346 req/s');
    expect(formatBytes(Number.NaN)).toBe('n/a');
  });

  it('formats a spread as min / median / max, leaving out failed runs', () => {
    expect(formatSpread([160, 98, 125, Number.NaN], msValue, 'ms')).toBe('min 98.0 / med 125 / max 160 ms');
    expect(formatSpread([Number.NaN], msValue, 'ms')).toBe('n/a');
  });
});

describe('rows of a bench that did not run', () => {
  it('say n/a with the reason when a piece is missing', () => {
    const [only] = unavailableRows([['3a', 'upstream calls', 'fixed target']], new NotAvailable('redis-server not installed'));
    expect(only).toMatchObject({ id: '3a', result: 'n/a', ours: 'n/a (redis-server not installed)' });
  });

  it('say error when the bench itself failed', () => {
    const rows = unavailableRows(
      [
        ['2a', 'rps', 'ratio (same run)'],
        ['2b', 'p50', 'ratio (same run)'],
      ],
      new Error('boom'),
    );
    expect(rows.map((r) => r.result)).toEqual(['error', 'error']);
    expect(rows[1]?.ours).toBe('error (boom)');
  });
});

describe('judgeTiming', () => {
  it('judges in a full run and never in quick mode', () => {
    expect(judgeTiming(true, false)).toBe('pass');
    expect(judgeTiming(false, false)).toBe('miss');
    expect(judgeTiming(false, true)).toBe('not judged');
  });
});
