import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestModule, TestRunEndReason, Vitest } from 'vitest/node';

/**
 * Lines a green run may print to stderr: the loud notice that a test needing an OS binary was
 * skipped (test/support/tools.ts; in CI a missing binary fails instead).
 */
const ALLOWED = [/^\s*\*\*\* SKIPPING \S+ tests: /];

const MAX_SHOWN = 10;

/**
 * Fails an otherwise green run when a test, a hook or a module under test wrote to stderr
 * (`console.error`, `console.warn`, `console.trace`, …): `npm test` must be quiet when it passes,
 * so a warning nobody reads cannot pile up. Expected noise is silenced where it starts, never
 * here; a red run is left alone (its output explains the failure).
 */
export default class QuietReporter implements Reporter {
  private readonly noise: UserConsoleLog[] = [];
  private vitest?: Vitest;

  private readonly write: (text: string) => void;
  private readonly fail: () => void;

  /**
   * `write` and `fail` are for its own test; vitest constructs it with its reporter options (an
   * object, `{}`), which is no function: then stderr and the exit code, as for no argument.
   */
  constructor(write?: unknown, fail?: unknown) {
    this.write = typeof write === 'function' ? (write as (text: string) => void) : (text) => void process.stderr.write(text);
    this.fail =
      typeof fail === 'function'
        ? (fail as () => void)
        : () => {
            process.exitCode = 1;
          };
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  /** `file > suite > test`, or the file, of the test that was running when the line was written. */
  private where(log: UserConsoleLog): string {
    const entity = log.taskId === undefined ? undefined : this.vitest?.state.getReportedEntityById(log.taskId);
    if (entity === undefined) return 'outside any test';
    return entity.type === 'module' ? entity.moduleId : `${entity.module.moduleId} > ${entity.fullName}`;
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    if (log.type === 'stderr' && !ALLOWED.some((pattern) => pattern.test(log.content))) this.noise.push(log);
  }

  onTestRunEnd(_modules: ReadonlyArray<TestModule>, _errors: ReadonlyArray<unknown>, reason: TestRunEndReason): void {
    if (reason !== 'passed' || this.noise.length === 0) return;
    const shown = this.noise.slice(0, MAX_SHOWN).map((log) => `  - ${log.content.trim().split('\n')[0]!.slice(0, 300)}\n    in ${this.where(log)}`);
    const more = this.noise.length > MAX_SHOWN ? `\n  … and ${this.noise.length - MAX_SHOWN} more` : '';
    this.write(
      `\nquiet-reporter: the tests passed but wrote ${this.noise.length} unexpected message(s) to stderr.\n` +
        `Silence expected noise where it starts, or fix what it warns about:\n${shown.join('\n')}${more}\n`,
    );
    this.fail();
  }
}
