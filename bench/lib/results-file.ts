import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { appendRun, HistoryFormatError, parseHistory, renderRunSection } from './history.js';
import { makePlots } from './plots.js';
import { renderResults, RESULTS_MARKER } from './report.js';
import type { RunRecord } from './run-record.js';

/**
 * Writing a run: appended to HISTORY.md (never rewritten), then RESULTS.md and the plots made
 * again from the whole history. A history the bench cannot read, or a RESULTS.md it did not
 * write, stops the writing before any file changes; the run's section is then kept in
 * `bench/.tmp/` so nothing is lost, and the error says where.
 */

/** Writes `text` to `path` through a file beside it and a rename: a crash leaves the old file or the new, never half of one. */
function writeAtomically(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

const read = (path: string) => (existsSync(path) ? readFileSync(path, 'utf8') : '');

export interface ReportFiles {
  /** The bench directory (HISTORY.md, RESULTS.md, plots/). */
  dir: string;
  /** Where a section that could not be appended is kept. */
  spillDir: string;
}

/** Checks RESULTS.md is the bench's own (or absent): a hand-written one is not overwritten. */
function checkResultsFile(path: string): void {
  const text = read(path);
  if (text !== '' && !text.includes(RESULTS_MARKER)) {
    throw new HistoryFormatError(
      `${path}: not written by the bench (no "generated" marker): move what it holds into HISTORY.md, then remove it; nothing written`,
    );
  }
}

/** RESULTS.md and the plots, made again from HISTORY.md. Returns the files written. */
export function regenerateReport({ dir }: Pick<ReportFiles, 'dir'>): string[] {
  const historyPath = join(dir, 'HISTORY.md');
  const resultsPath = join(dir, 'RESULTS.md');
  const runs = parseHistory(read(historyPath), historyPath);
  checkResultsFile(resultsPath);
  const plots = makePlots(runs);
  for (const plot of plots) writeAtomically(join(dir, plot.file), plot.svg);
  writeAtomically(resultsPath, renderResults(runs, plots));
  return [resultsPath, ...plots.map((plot) => join(dir, plot.file))];
}

/**
 * Appends `record` to HISTORY.md and makes RESULTS.md and the plots again. On a history or
 * results file the bench cannot safely write, throws after keeping the section in `spillDir`.
 */
export function writeRun(record: RunRecord, notes: readonly string[], files: ReportFiles): string[] {
  const historyPath = join(files.dir, 'HISTORY.md');
  const section = renderRunSection(record, notes);
  try {
    checkResultsFile(join(files.dir, 'RESULTS.md'));
    const next = appendRun(read(historyPath), section, historyPath);
    // The new file must read back as the old one plus this run, before it replaces the old one.
    if (parseHistory(next, historyPath).at(-1)?.record?.date !== record.date)
      throw new HistoryFormatError(`${historyPath}: the appended run does not read back; nothing written`);
    writeAtomically(historyPath, next);
  } catch (error) {
    const spill = join(files.spillDir, `unsaved-run-${record.date.replace(/[:.]/g, '-')}.md`);
    writeAtomically(spill, section);
    throw new HistoryFormatError(`${(error as Error).message}. This run is kept in ${spill}`);
  }
  return [historyPath, ...regenerateReport(files)];
}
