import type { HistoryRun } from './history.js';
import { compareRowIds, type Plot } from './report.js';
import type { Series } from './run-record.js';
import { median, ratio } from './stats.js';
import { distributionSvg, timeSeriesSvg, type DistributionGroup } from './svg.js';

/**
 * The plots RESULTS.md and the README link (bench/plots/*.svg), each drawn from the latest run in
 * HISTORY.md that recorded its series: time to dashboard per engine against its baseline (the
 * judged rows 4m/4n), rotation against its baseline, and the fleet's vendor calls over time.
 */

export interface PlotFile extends Plot {
  svg: string;
}

/** The latest run (last in the file) that recorded a series whose key starts with `prefix`. */
function latestWith(runs: readonly HistoryRun[], prefix: string): { run: HistoryRun; series: Series[] } | undefined {
  for (let i = runs.length - 1; i >= 0; i--) {
    const series = runs[i]!.record?.series.filter((s) => s.key.startsWith(prefix)) ?? [];
    if (series.length > 0) return { run: runs[i]!, series };
  }
  return undefined;
}

const values = (series: Series[], key: string) => series.find((s) => s.key === key)?.values ?? [];
const ratioNote = (ours: readonly number[], baseline: readonly number[]) => {
  const r = ratio(median(ours), median(baseline));
  return Number.isFinite(r) ? `ratio ${r.toFixed(2)}×` : 'ratio n/a';
};

/** What a plot's title says of its run: which one, and that a quick run's figures are not judged. */
const fromRun = (run: HistoryRun) => ` (H${run.index}, ${run.date?.slice(0, 10) ?? '?'}${run.mode === 'quick' ? ', a quick run: few runs, not judged' : ''})`;

const ENGINE_NAMES: Record<string, string> = { '': 'Chromium', firefox: 'Firefox ESR', webkit: 'WebKitGTK' };

/** Every plot that some run has the data for. */
export function makePlots(runs: readonly HistoryRun[]): PlotFile[] {
  const plots: PlotFile[] = [];
  const ttd = latestWith(runs, 'ttd ');
  if (ttd) {
    // `ttd <row id> ours|baseline`: the judged rows of each engine, 4m (no extra load) and 4n (one busy loop added).
    const ids = [...new Set(ttd.series.map((s) => s.key.split(' ')[1]!))].filter((id) => /^4[mn](-|$)/.test(id)).sort(compareRowIds);
    const groups: DistributionGroup[] = ids.map((id) => {
      const [row, engine = ''] = id.split('-') as [string, string?];
      const ours = values(ttd.series, `ttd ${id} ours`);
      const baseline = values(ttd.series, `ttd ${id} baseline`);
      return {
        label: `${ENGINE_NAMES[engine] ?? engine} ${row} ${row === '4m' ? '(no extra load)' : '(busy loop added)'}`,
        series: [
          { label: 'ours', values: ours },
          { label: 'baseline', values: baseline },
        ],
        note: ratioNote(ours, baseline),
      };
    });
    if (groups.length > 0) {
      plots.push({
        file: 'plots/time-to-dashboard.svg',
        title: 'Time to dashboard per engine, ours (4m/4n) against its baseline in the same pass',
        run: ttd.run,
        svg: distributionSvg(`Time to dashboard, every load${fromRun(ttd.run)}`, 'ms', groups),
      });
    }
  }
  const rotation = latestWith(runs, 'rotation ');
  if (rotation) {
    const baseline = values(rotation.series, 'rotation baseline');
    const rows: Array<[string, string]> = [
      ['5a', 'message protocol (5a)'],
      ['5c', 'vendor embed swap (5c)'],
      ['5e', 'explo-jwt renewal (5e)'],
    ];
    const groups: DistributionGroup[] = rows
      .filter(([id]) => values(rotation.series, `rotation ${id}`).length > 0)
      .map(([id, label]) => ({
        label,
        series: [
          { label: 'rotation', values: values(rotation.series, `rotation ${id}`) },
          { label: id === '5e' ? "5c's swap" : "4a's baseline load", values: id === '5e' ? values(rotation.series, 'rotation 5c') : baseline },
        ],
        note: ratioNote(values(rotation.series, `rotation ${id}`), id === '5e' ? values(rotation.series, 'rotation 5c') : baseline),
      }));
    if (groups.length > 0) {
      plots.push({
        file: 'plots/rotation.svg',
        title: 'Rotation: token expired → dashboard on the new token, against its baseline',
        run: rotation.run,
        svg: distributionSvg(`Rotation time, every run${fromRun(rotation.run)}`, 'ms', groups),
      });
    }
  }
  const fleet = latestWith(runs, 'fleet ');
  if (fleet) {
    const labels: Record<string, string> = {
      'fleet budget calls': 'ours (vendor budget): vendor calls',
      'fleet baseline calls': 'baseline (no budget): vendor calls',
      'fleet budget 429': 'ours: vendor 429s',
      'fleet baseline 429': 'baseline: vendor 429s',
    };
    const series = Object.entries(labels)
      .map(([key, label]) => ({ label, points: fleet.series.find((s) => s.key === key)?.points ?? [] }))
      .filter((s) => s.points.length > 0);
    if (series.length > 0) {
      plots.push({
        file: 'plots/fleet-vendor-calls.svg',
        title: "The fleet's vendor calls over time (row 7), ours and the baseline side by side",
        run: fleet.run,
        svg: timeSeriesSvg(`The fleet's vendor calls, cumulative (row 7)${fromRun(fleet.run)}`, 's since the first visit', 'calls', series),
      });
    }
  }
  return plots;
}
