import { describe, expect, it, type UserConsoleLog } from 'vitest';
import QuietReporter from './quiet-reporter.js';

const log = (content: string, type: 'stdout' | 'stderr' = 'stderr'): UserConsoleLog => ({ content, type, time: 0, size: content.length });

function run(logs: UserConsoleLog[], reason: 'passed' | 'failed' | 'interrupted' = 'passed') {
  const written: string[] = [];
  let failed = false;
  const reporter = new QuietReporter(
    (text: string) => written.push(text),
    () => (failed = true),
  );
  for (const entry of logs) reporter.onUserConsoleLog(entry);
  reporter.onTestRunEnd([], [], reason);
  return { failed, written: written.join('') };
}

describe('quiet reporter', () => {
  it('fails a green run that wrote to stderr, quoting the first line of each message', () => {
    const { failed, written } = run([log('Lit is in dev mode.\nmore'), log('DOMException: Iframe page loading is disabled.\n  at x')]);
    expect(failed).toBe(true);
    expect(written).toContain('wrote 2 unexpected message(s)');
    expect(written).toContain('- Lit is in dev mode.\n    in outside any test');
    expect(written).not.toContain('more');
  });

  it('lets a green run with stdout only, or with the loud skip notice, pass', () => {
    expect(run([log('progress', 'stdout'), log('\n*** SKIPPING redis-server tests: redis-server not found ***\n')]).failed).toBe(false);
  });

  it('leaves a red or interrupted run to its own failures', () => {
    expect(run([log('warning')], 'failed')).toEqual({ failed: false, written: '' });
    expect(run([log('warning')], 'interrupted').failed).toBe(false);
  });

  it('lists at most ten messages and counts the rest', () => {
    const { written } = run(Array.from({ length: 12 }, (_, i) => log(`warning ${i}`)));
    expect(written).toContain('warning 9');
    expect(written).not.toContain('warning 10');
    expect(written).toContain('… and 2 more');
  });
});
