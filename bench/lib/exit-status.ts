import type { Row } from './row.js';

export interface ExitInputs {
  rows: readonly Row[];
  /** Whether ours with Lit inside is within the size budget; `undefined` when not measured. */
  withinBudget: boolean | undefined;
  /** CI: every piece and tool is installed, so a row that could not run is a broken bench. */
  strict: boolean;
}

/**
 * Why the run must exit non-zero (empty when it must not). Timing targets never appear here:
 * a shared machine can miss them through no fault of the code.
 */
export function failureReasons({ rows, withinBudget, strict }: ExitInputs): string[] {
  const reasons: string[] = [];
  if (withinBudget === false) reasons.push('our element with Lit inside is over the gzip size budget (row 1a or 1b)');
  const errored = rows.filter((row) => row.result === 'error').map((row) => row.id);
  if (errored.length > 0) reasons.push(`row(s) ${errored.join(', ')} errored`);
  const missing = rows.filter((row) => row.result === 'n/a').map((row) => row.id);
  if (strict && missing.length > 0) reasons.push(`row(s) ${missing.join(', ')} could not run, which CI does not allow`);
  return reasons;
}
