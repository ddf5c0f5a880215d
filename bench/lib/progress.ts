/**
 * Progress of a long bench pass on stderr: which pass, run n of N, elapsed, and an estimate of
 * what is left, so a person running `npm run bench` sees it move. Lines are throttled (at most
 * one per `everyMs`, and always the last), and the estimate is plain arithmetic on the runs done.
 */

/** `95 s`, `4 min 05 s`, `1 h 02 min`: durations as people read them. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '?';
  const whole = Math.round(seconds);
  if (whole < 100) return `${whole} s`;
  const minutes = Math.floor(whole / 60);
  if (minutes < 60) return `${minutes} min ${String(whole % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The time left after `done` of `total` runs in `elapsedMs`, at the pace so far; NaN before the first. */
export function remainingMs(done: number, total: number, elapsedMs: number): number {
  if (!(done > 0) || !(total >= done) || !(elapsedMs >= 0)) return Number.NaN;
  return (elapsedMs / done) * (total - done);
}

/** One progress line: `bench: 4 quiet pass: run 12 of 150, 41 s elapsed, about 7 min 31 s left`. */
export function progressLine(pass: string, done: number, total: number, elapsedMs: number): string {
  const left = remainingMs(done, total, elapsedMs);
  const estimate = done >= total ? 'done' : Number.isFinite(left) ? `about ${formatDuration(left / 1000)} left` : 'estimating';
  return `bench: ${pass}: run ${done} of ${total}, ${formatDuration(elapsedMs / 1000)} elapsed, ${estimate}`;
}

export interface ProgressOptions {
  /** Where lines go; default stderr. */
  write?: (line: string) => void;
  /** The clock, ms; default `performance.now`. */
  now?: () => number;
  /** The least time between two lines; default 10 s (a quiet terminal, still moving). */
  everyMs?: number;
}

export interface Ticker {
  /** One more run done. */
  tick(): void;
}

/** A ticker for `total` runs of `pass`: prints the first run, then at most once per `everyMs`, and the last. */
export function startProgress(pass: string, total: number, options: ProgressOptions = {}): Ticker {
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const now = options.now ?? (() => performance.now());
  const everyMs = options.everyMs ?? 10_000;
  const started = now();
  let done = 0;
  let printedAt = Number.NEGATIVE_INFINITY;
  return {
    tick() {
      done++;
      const at = now();
      if (done === 1 || done >= total || at - printedAt >= everyMs) {
        printedAt = at;
        write(progressLine(pass, Math.min(done, total), total, at - started));
      }
    },
  };
}

/** The pass name the loops of the current bench report under (set by run.ts around each bench). */
let currentPass = '';
export const setPass = (name: string): void => {
  currentPass = name;
};
/** A ticker for `total` runs of the current pass, `what` saying which part (e.g. `Chromium quiet pass`). */
export const passProgress = (what: string, total: number, options?: ProgressOptions): Ticker =>
  startProgress(currentPass === '' ? what : `${currentPass} ${what}`, total, options);
