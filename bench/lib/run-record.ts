import type { Row, Verdict } from './row.js';

/**
 * One bench run as the bench records it in bench/HISTORY.md (a JSON comment under the run's
 * table): what RESULTS.md's current figures, the plots and the next run's estimates are made of.
 */
export interface RunRecord {
  /** `--write-results=<label>`. */
  label: string;
  /** ISO 8601, UTC, when the run started. */
  date: string;
  /** `git rev-parse --short HEAD`, with `+dirty` when the work tree had changes; `unknown` without git. */
  commit: string;
  mode: 'full' | 'quick';
  /** `--only=` as given, or empty for every bench. */
  only: string[];
  /** CPUs, model, load average at the start (`describeMachine`). */
  machine: string;
  /** Load average (1 min) at the start and at the end. */
  loadStart: number;
  loadEnd: number;
  /** Wall seconds of the whole run. */
  seconds: number;
  /** Wall seconds of each bench that ran (`size`, `browser`, ...): the next run's estimates. */
  passes: Record<string, number>;
  rows: Row[];
  /** Raw samples behind the plots (see `Series`), when the benches that make them ran. */
  series: Series[];
}

/**
 * A named set of raw figures: `values` for a distribution (one per run, e.g. ms per page load),
 * or `points` for a figure over time (`[seconds since start, value]`).
 */
export interface Series {
  /** Stable key, e.g. `ttd chromium 4m ours`, `fleet budget calls`. */
  key: string;
  unit: string;
  values?: number[];
  points?: Array<[number, number]>;
}

const VERDICTS: readonly Verdict[] = ['pass', 'miss', 'info', 'not judged', 'n/a', 'error'];
const ROW_FIELDS = ['id', 'metric', 'kind', 'ours', 'baseline', 'ratio', 'target'] as const;

/** A record read back from a file, checked field by field; the first problem is thrown as a `TypeError` naming the field. */
export function checkRunRecord(value: unknown): RunRecord {
  const fail = (what: string): never => {
    throw new TypeError(`bench-run record: ${what}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('not an object');
  const record = value as Record<string, unknown>;
  for (const key of ['label', 'date', 'commit', 'machine'] as const) if (typeof record[key] !== 'string') fail(`${key} is not a string`);
  if (Number.isNaN(Date.parse(record.date as string))) fail('date is not a date');
  if (record.mode !== 'full' && record.mode !== 'quick') fail('mode is neither full nor quick');
  if (!Array.isArray(record.only) || record.only.some((name) => typeof name !== 'string')) fail('only is not a list of names');
  for (const key of ['loadStart', 'loadEnd', 'seconds'] as const) if (typeof record[key] !== 'number') fail(`${key} is not a number`);
  const passes = record.passes;
  if (typeof passes !== 'object' || passes === null || Object.values(passes).some((s) => typeof s !== 'number' || !(s >= 0)))
    fail('passes is not a map of seconds');
  if (!Array.isArray(record.rows)) fail('rows is not a list');
  for (const [index, row] of (record.rows as unknown[]).entries()) {
    if (typeof row !== 'object' || row === null) fail(`rows[${index}] is not an object`);
    const r = row as Record<string, unknown>;
    for (const field of ROW_FIELDS) if (typeof r[field] !== 'string') fail(`rows[${index}].${field} is not a string`);
    if (!VERDICTS.includes(r.result as Verdict)) fail(`rows[${index}].result is not a verdict`);
  }
  if (!Array.isArray(record.series)) fail('series is not a list');
  for (const [index, series] of (record.series as unknown[]).entries()) {
    const s = series as Record<string, unknown> | null;
    if (typeof s !== 'object' || s === null || typeof s.key !== 'string' || typeof s.unit !== 'string') fail(`series[${index}] has no key and unit`);
    const t = s as Record<string, unknown>;
    if (t.values !== undefined && (!Array.isArray(t.values) || t.values.some((v) => typeof v !== 'number'))) fail(`series[${index}].values are not numbers`);
    if (
      t.points !== undefined &&
      (!Array.isArray(t.points) || t.points.some((p) => !Array.isArray(p) || p.length !== 2 || p.some((v: unknown) => typeof v !== 'number')))
    )
      fail(`series[${index}].points are not [seconds, value] pairs`);
  }
  return record as unknown as RunRecord;
}

/** What the benches hand run.ts beside their rows: raw samples for the plots. */
const collected: Series[] = [];
/** Records a series of this run (a later one of the same key replaces it). */
export function recordSeries(series: Series): void {
  const at = collected.findIndex((s) => s.key === series.key);
  const clean: Series = { key: series.key, unit: series.unit };
  // JSON has no NaN: a failed run is left out of a distribution, as formatSpread leaves it out.
  if (series.values) clean.values = series.values.filter(Number.isFinite).map((v) => Math.round(v * 100) / 100);
  if (series.points) clean.points = series.points.filter(([t, v]) => Number.isFinite(t) && Number.isFinite(v));
  if (at === -1) collected.push(clean);
  else collected[at] = clean;
}
/** Every series recorded so far in this process. */
export const recordedSeries = (): Series[] => [...collected];
