/** Where provision's progress goes: a bar redrawn in place on a terminal, else a plain line now and then. */
export interface ProgressOutput {
  /** The terminal (stderr when it is one); unset: not a terminal. */
  tty?: { write(text: string): unknown };
  /** A whole line, when not on a terminal. */
  line(text: string): void;
}

export interface Progress {
  tick(): void;
  done(): void;
}

const BAR_WIDTH = 30;
/** Back to the line's start, and (after the bar) erase what a longer earlier bar left. */
const CARRIAGE_RETURN = '\r';
const ERASE_TO_END = '\u001b[K';

/**
 * Counts finished items of `total` and shows the count, the rate so far and the time left. On a
 * terminal: one bar, redrawn in place on every tick, ended by a newline in `done()`. Otherwise a
 * plain line at most once a second and one for the last item (logs stay readable).
 */
export function createProgress(total: number, output: ProgressOutput, now: () => number = Date.now): Progress {
  const startedAt = now();
  let finished = 0;
  let lastLine: number | undefined;
  const figures = () => {
    const seconds = (now() - startedAt) / 1000;
    const rate = seconds > 0 ? finished / seconds : 0;
    const eta = rate > 0 ? Math.ceil((total - finished) / rate) : undefined;
    return `${finished}/${total} ${rate.toFixed(1)}/s ETA ${eta === undefined ? '?' : `${eta} s`}`;
  };
  return {
    tick() {
      finished++;
      const tty = output.tty;
      if (tty !== undefined) {
        const filled = total === 0 ? BAR_WIDTH : Math.min(BAR_WIDTH, Math.round((finished / total) * BAR_WIDTH));
        tty.write(`${CARRIAGE_RETURN}[${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${figures()}${ERASE_TO_END}`);
      } else if (finished === total || lastLine === undefined || now() - lastLine >= 1_000) {
        lastLine = now();
        output.line(`provision: ${figures()}`);
      }
    },
    done() {
      if (output.tty !== undefined && finished > 0) output.tty.write('\n');
    },
  };
}
