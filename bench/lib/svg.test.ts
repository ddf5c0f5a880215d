import { describe, expect, it } from 'vitest';
import { makePlots } from './plots.js';
import { appendRun, parseHistory, renderRunSection } from './history.js';
import { distributionSvg, escapeXml, ticks, timeSeriesSvg } from './svg.js';
import type { RunRecord } from './run-record.js';

/** The numbers an SVG shows as text. */
const texts = (svg: string) => [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);

describe('ticks', () => {
  it('gives round steps covering the range', () => {
    expect(ticks(0, 1000)).toEqual([0, 200, 400, 600, 800, 1000]);
    expect(ticks(0, 7, 5)).toEqual([0, 2, 4, 6]);
    expect(ticks(5, 5)).toEqual([5]);
    expect(ticks(Number.NaN, 3)).toEqual([]);
  });
});

describe('distributionSvg', () => {
  it('draws every run as a dot and marks the median of each series', () => {
    const svg = distributionSvg('T', 'ms', [
      {
        label: 'Chromium 4m',
        series: [
          { label: 'ours', values: [100, 300, 200] },
          { label: 'baseline', values: [150, 150] },
        ],
        note: 'ratio 1.33×',
      },
    ]);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.match(/<circle /g)).toHaveLength(5);
    expect(texts(svg)).toEqual(expect.arrayContaining(['Chromium 4m', 'ours (3)', 'baseline (2)', '200', '150', 'ratio 1.33×', 'ms']));
  });

  it('leaves out NaN and Infinity, says "no runs" for an empty series, and escapes labels', () => {
    const svg = distributionSvg('<b>&', 'ms', [{ label: 'a"<', series: [{ label: 'x', values: [Number.NaN, Number.POSITIVE_INFINITY] }] }]);
    expect(svg).not.toMatch(/NaN|Infinity/);
    expect(svg).toContain('no runs');
    expect(svg).toContain('&lt;b&gt;&amp;');
    expect(svg).toContain('a&quot;&lt;');
    expect(escapeXml('<&>"')).toBe('&lt;&amp;&gt;&quot;');
  });
});

describe('timeSeriesSvg', () => {
  it('draws one path a series, sorted by time, and survives no points', () => {
    const svg = timeSeriesSvg('T', 's', 'calls', [
      {
        label: 'ours',
        points: [
          [2, 5],
          [0, 0],
          [1, 3],
        ],
      },
      { label: 'none', points: [] },
    ]);
    expect(svg.match(/<path /g)).toHaveLength(1);
    const d = /<path d="([^"]+)"/.exec(svg)![1]!;
    const xs = [...d.matchAll(/[ML]([\d.]+),/g)].map((m) => Number(m[1]));
    expect(xs).toEqual([...xs].sort((a, b) => a - b));
    expect(svg).toContain('none (no points)');
    expect(timeSeriesSvg('T', 's', 'y', [])).not.toMatch(/NaN/);
  });
});

describe('makePlots', () => {
  const run = (series: RunRecord['series']): RunRecord => ({
    label: 'r',
    date: '2026-12-02T00:00:00.000Z',
    commit: 'abc1234',
    mode: 'quick',
    only: [],
    machine: 'm',
    loadStart: 1,
    loadEnd: 1,
    seconds: 1,
    passes: {},
    rows: [],
    series,
  });
  it('draws each plot from the latest run that has its series, and none without data', () => {
    expect(makePlots([])).toEqual([]);
    const history = [
      run([
        { key: 'rotation 5a', unit: 'ms', values: [10] },
        { key: 'rotation baseline', unit: 'ms', values: [20] },
      ]),
      run([
        { key: 'ttd 4m ours', unit: 'ms', values: [1, 2] },
        { key: 'ttd 4m baseline', unit: 'ms', values: [2, 2] },
        { key: 'ttd 4m-firefox ours', unit: 'ms', values: [3] },
        { key: 'ttd 4a ours', unit: 'ms', values: [9] },
        {
          key: 'fleet budget calls',
          unit: 'calls',
          points: [
            [0, 0],
            [1, 4],
          ],
        },
      ]),
    ].reduce((text, record) => appendRun(text, renderRunSection(record)), '');
    const plots = makePlots(parseHistory(history));
    expect(plots.map((p) => [p.file, p.run?.index])).toEqual([
      ['plots/time-to-dashboard.svg', 2],
      ['plots/rotation.svg', 1],
      ['plots/fleet-vendor-calls.svg', 2],
    ]);
    const ttd = texts(plots[0]!.svg);
    expect(ttd).toEqual(expect.arrayContaining(['Chromium 4m (no extra load)', 'Firefox ESR 4m (no extra load)', 'ratio 0.75×', 'ratio n/a']));
    expect(ttd.join(' ')).not.toContain('4a');
  });
});
