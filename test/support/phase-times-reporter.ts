import { appendFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * `.ci/run`'s per-project wall time of one vitest run: with `VITEST_PHASE_TIMES=<file>` set, it
 * appends a line `vitest run: <project>\t<seconds>` per project, from the start of its first file to
 * the end of its last (projects of one group overlap: node and element run side by side, e2e
 * after them). Without the variable it does nothing.
 */
export default class PhaseTimesReporter implements Reporter {
  private readonly spans = new Map<string, { start: number; end: number }>();

  private readonly file: string | undefined;
  private readonly now: () => number;

  /** The options are for its own test; vitest constructs it with none of them. */
  constructor({ file = process.env.VITEST_PHASE_TIMES, now = Date.now }: { file?: string; now?: () => number } = {}) {
    this.file = file;
    this.now = now;
  }

  /** A file is queued just before its worker imports it. */
  onTestModuleQueued(module: TestModule): void {
    const name = module.project.name || 'vitest';
    if (!this.spans.has(name)) this.spans.set(name, { start: this.now(), end: this.now() });
  }

  onTestModuleEnd(module: TestModule): void {
    const span = this.spans.get(module.project.name || 'vitest');
    if (span) span.end = this.now();
  }

  onTestRunEnd(): void {
    if (!this.file) return;
    const lines = [...this.spans].map(([name, { start, end }]) => `vitest run: ${name}\t${Math.round((end - start) / 1000)}\n`);
    appendFileSync(this.file, lines.join(''));
  }
}
