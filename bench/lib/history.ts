import type { Row, RowKind, Verdict } from './row.js';
import { checkRunRecord, type RunRecord } from './run-record.js';
import { formatTable } from './table.js';

/**
 * bench/HISTORY.md: every run written, oldest first, one `## ` section each. The bench appends a
 * section per run (its table, its footer, and the run as a JSON comment, `<!-- bench-run {...} -->`)
 * and never rewrites what is there. Sections written by hand before the bench wrote this file
 * (the old RESULTS.md runs) have no record: their row tables and footers are read as they are.
 */

export const HISTORY_TITLE = '# Benchmark history';
const RECORD_OPEN = '<!-- bench-run ';
const RECORD_CLOSE = ' -->';
const VERDICTS = new Set<Verdict>(['pass', 'miss', 'info', 'not judged', 'n/a', 'error']);

/** A HISTORY.md the bench cannot read: which file and line, and what is wrong. Nothing is written over it. */
export class HistoryFormatError extends Error {
  override name = 'HistoryFormatError';
}

/** A run's figures as HISTORY.md holds them, whether the bench wrote the section or a person did. */
export interface HistoryRun {
  /** 1-based position among the sections: RESULTS.md names runs by it (`H12`). */
  index: number;
  heading: string;
  /** 1-based line of the heading. */
  line: number;
  /** The bench's record, for sections it wrote. */
  record?: RunRecord;
  rows: Row[];
  mode: 'full' | 'quick';
  date?: string;
  commit?: string;
  loadStart?: number;
  loadEnd?: number;
}

const isCommit = (word: string) => /^[0-9a-f]{7,40}$/.test(word) && /\d/.test(word) && /[a-f]/.test(word);

/** Splits a markdown table line into cells, honouring `\|` (formatTable's escape). */
function cells(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  return inner.split(/(?<!\\)\|/).map((cell) => cell.trim().replace(/\\\|/g, '|').replace(/\\\\/g, '\\'));
}

/** A result cell as a verdict: the bench's own words, or a hand-written `miss by 783 B`. */
function verdictOf(cell: string): Verdict {
  if (VERDICTS.has(cell as Verdict)) return cell as Verdict;
  const first = /^(pass|miss)\b/.exec(cell)?.[1];
  return first === undefined ? 'info' : (first as Verdict);
}

/**
 * The rows of every results table in a hand-written section: the bench's 8 columns, or any table
 * whose header starts with `#` and has an `ours` column (cells found by their header's name).
 */
function tableRows(lines: readonly string[]): Row[] {
  const rows: Row[] = [];
  let columns: string[] | undefined;
  for (const line of lines) {
    if (!line.trimStart().startsWith('|')) {
      columns = undefined;
      continue;
    }
    const parts = cells(line);
    if (columns === undefined) {
      if (parts[0] === '#' && parts.includes('ours')) columns = parts.map((part) => part.split(' ')[0]!);
      continue;
    }
    if (parts.every((part) => /^:?-*:?$/.test(part)) || parts.length !== columns.length) continue;
    const get = (name: string) => parts[columns!.indexOf(name)] ?? '';
    rows.push({
      id: get('#'),
      metric: get('metric'),
      kind: (get('kind') || 'fixed target') as RowKind,
      ours: get('ours'),
      baseline: get('baseline') || get('ceiling'),
      ratio: get('ratio'),
      target: get('target'),
      result: verdictOf(get('result')),
    });
  }
  return rows;
}

/** What a hand-written section says of itself: its footer (`Mode: …`, the date, the loads) and its heading. */
function legacyMeta(heading: string, text: string): Pick<HistoryRun, 'mode' | 'date' | 'commit' | 'loadStart' | 'loadEnd'> {
  const footer = /^Mode: (full|quick)\b.*$/m.exec(text);
  const quick = footer ? footer[1] === 'quick' : /\bquick\b|bench:quick/i.test(heading);
  const date = /\b(20\d\d-\d\d-\d\dT[\d:.]+Z)/.exec(footer?.[0] ?? '')?.[1] ?? /\b(20\d\d-\d\d-\d\d)\b/.exec(heading)?.[1];
  const commit = heading.split(/[^0-9a-f]+/).find(isCommit);
  const loadStart = Number(/load average at start ([\d.]+)/.exec(footer?.[0] ?? '')?.[1] ?? /load average (?:\(1 min\) )?([\d.]+)/.exec(heading)?.[1]);
  const loadEnd = Number(/load average at the end ([\d.]+)/.exec(footer?.[0] ?? '')?.[1]);
  return {
    mode: quick ? 'quick' : 'full',
    ...(date === undefined ? {} : { date }),
    ...(commit === undefined ? {} : { commit }),
    ...(Number.isFinite(loadStart) ? { loadStart } : {}),
    ...(Number.isFinite(loadEnd) ? { loadEnd } : {}),
  };
}

/**
 * Reads HISTORY.md (`file` names it in errors). Throws a {@link HistoryFormatError} with the
 * line when the file is not the bench's history or a record the bench wrote is cut off or altered.
 */
export function parseHistory(text: string, file = 'bench/HISTORY.md'): HistoryRun[] {
  if (text.trim() === '') return [];
  if (!text.startsWith(`${HISTORY_TITLE}\n`)) {
    throw new HistoryFormatError(`${file} line 1: does not start with "${HISTORY_TITLE}": not the bench's history (or cut at the start); nothing written`);
  }
  const lines = text.split('\n');
  const runs: HistoryRun[] = [];
  let start = -1;
  const close = (end: number) => {
    if (start === -1) return;
    const heading = lines[start]!.slice(3).trim();
    const body = lines.slice(start + 1, end);
    const index = runs.length + 1;
    const at = body.findIndex((line) => line.startsWith(RECORD_OPEN));
    if (at === -1) {
      runs.push({ index, heading, line: start + 1, rows: tableRows(body), ...legacyMeta(heading, body.join('\n')) });
    } else {
      const recordLine = start + 2 + at;
      const raw = body[at]!;
      if (!raw.endsWith(RECORD_CLOSE)) {
        throw new HistoryFormatError(
          `${file} line ${recordLine}: the bench-run record of "${heading.slice(0, 80)}" is cut off (no closing -->); nothing written`,
        );
      }
      let record: RunRecord;
      try {
        record = checkRunRecord(JSON.parse(raw.slice(RECORD_OPEN.length, -RECORD_CLOSE.length)));
      } catch (error) {
        throw new HistoryFormatError(
          `${file} line ${recordLine}: the bench-run record of "${heading.slice(0, 80)}" is unreadable (${(error as Error).message}); nothing written`,
        );
      }
      runs.push({
        index,
        heading,
        line: start + 1,
        record,
        rows: record.rows,
        mode: record.mode,
        date: record.date,
        commit: record.commit,
        loadStart: record.loadStart,
        loadEnd: record.loadEnd,
      });
    }
  };
  let fence = false;
  for (const [number, line] of lines.entries()) {
    if (line.startsWith('```')) fence = !fence;
    if (fence || !/^## (?!#)/.test(line)) continue;
    close(number);
    start = number;
  }
  close(lines.length);
  return runs;
}

/** JSON that cannot end the comment it sits in (`-->`) or open a tag. */
const commentSafeJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e');

/** The footer line under a run's table. */
export function runFooter(record: RunRecord): string {
  const mode = record.mode === 'quick' ? 'quick (timings not judged)' : 'full';
  const only = record.only.length === 0 ? '' : ` (--only=${record.only.join(',')})`;
  return `Mode: ${mode}${only}. Ran in ${record.seconds.toFixed(1)} s on ${record.machine}; load average at the end ${record.loadEnd.toFixed(2)}.`;
}

/** The section the bench appends for a run: heading, table, footer, notes, and its record. */
export function renderRunSection(record: RunRecord, notes: readonly string[] = []): string {
  const heading = `## ${record.label} (${record.date.slice(0, 16).replace('T', ' ')} UTC, commit ${record.commit}, ${record.mode})`;
  const noteText = notes.length === 0 ? '' : `\n\n${notes.join('\n')}`;
  return `${heading}\n\n${formatTable(record.rows)}\n\n${runFooter(record)}${noteText}\n\n${RECORD_OPEN}${commentSafeJson(record)}${RECORD_CLOSE}\n`;
}

/** The intro a new HISTORY.md starts with. */
export const HISTORY_INTRO =
  'Every run of `npm run bench` written with `--write-results=<label>`, oldest first, loaded runs and quiet ones alike: none is left out for being slow. ' +
  'The bench appends each run (its table, its footer and its record as a JSON comment) and never rewrites what is here; ' +
  '[RESULTS.md](RESULTS.md) is made from this file. Sections without a record were written by hand before the bench kept this file.';

/**
 * `existing` with `section` appended. `existing` is read first, so a history the bench cannot
 * read throws (a {@link HistoryFormatError}) before anything is written.
 */
export function appendRun(existing: string, section: string, file = 'bench/HISTORY.md'): string {
  parseHistory(existing, file);
  const head = existing.trim() === '' ? `${HISTORY_TITLE}\n\n${HISTORY_INTRO}\n` : existing;
  return `${head.trimEnd()}\n\n${section.trimEnd()}\n`;
}
