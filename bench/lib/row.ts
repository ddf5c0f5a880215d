/**
 * How a row is judged. `ratio (same run)`: ours ÷ a baseline measured in the same run, so the
 * figure means the same on a faster or slower machine. `fixed target`: ours against a number
 * fixed in advance (a byte budget, exactly one vendor call, zero blank frames).
 */
export type RowKind = 'ratio (same run)' | 'fixed target';

/**
 * One line of the results table; `ratio` is ours ÷ baseline. Timed figures carry their spread
 * over the runs (`min / med / max`) in the `ours` and `baseline` cells.
 */
export interface Row {
  /** Stable id, e.g. `1a`, that `bench/README.md` explains. */
  id: string;
  metric: string;
  kind: RowKind;
  ours: string;
  baseline: string;
  ratio: string;
  target: string;
  result: Verdict;
}

/**
 * `pass`/`miss`: judged against the target. `info`: a figure without a target of its own.
 * `not judged`: a timing in quick mode (CI machines are too noisy for timing thresholds).
 * `n/a`: the piece or tool it needs is missing. `error`: the bench itself failed.
 */
export type Verdict = 'pass' | 'miss' | 'info' | 'not judged' | 'n/a' | 'error';

/** A bench cannot run here (a package not built, a binary not installed): its rows say n/a. */
export class NotAvailable extends Error {
  override name = 'NotAvailable';
}

/** Rows for a bench that could not run: each named metric with the reason. */
export function unavailableRows(ids: ReadonlyArray<readonly [id: string, metric: string, kind: RowKind]>, error: unknown): Row[] {
  const available = error instanceof NotAvailable;
  const reason = error instanceof Error ? error.message : String(error);
  return ids.map(([id, metric, kind]) => ({
    id,
    metric,
    kind,
    ours: available ? `n/a (${reason})` : `error (${reason})`,
    baseline: '',
    ratio: '',
    target: '',
    result: available ? 'n/a' : 'error',
  }));
}

/** `pass` or `miss` in a full run; `not judged` for timings in quick mode. */
export function judgeTiming(met: boolean, quick: boolean): Verdict {
  if (quick) return 'not judged';
  return met ? 'pass' : 'miss';
}
