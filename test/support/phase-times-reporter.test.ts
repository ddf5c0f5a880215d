import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestModule } from 'vitest/node';
import PhaseTimesReporter from './phase-times-reporter.js';

const module = (project: string) => ({ project: { name: project } }) as unknown as TestModule;

describe('phase times reporter', () => {
  const dirs: string[] = [];
  afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

  it("appends each project's span, from its first file queued to its last file's end", () => {
    const dir = mkdtempSync(join(tmpdir(), 'phase-times-'));
    dirs.push(dir);
    const file = join(dir, 'times');
    let clock = 0;
    const reporter = new PhaseTimesReporter({ file, now: () => clock });
    reporter.onTestModuleQueued(module('node'));
    clock = 1_000;
    reporter.onTestModuleQueued(module('element'));
    reporter.onTestModuleQueued(module('node'));
    clock = 30_400;
    reporter.onTestModuleEnd(module('element'));
    clock = 61_600;
    reporter.onTestModuleEnd(module('node'));
    reporter.onTestModuleQueued(module('e2e'));
    clock = 200_000;
    reporter.onTestModuleEnd(module('e2e'));
    reporter.onTestRunEnd();
    expect(readFileSync(file, 'utf8')).toBe('vitest run: node\t62\nvitest run: element\t29\nvitest run: e2e\t138\n');
  });

  it('writes nothing without a file', () => {
    const reporter = new PhaseTimesReporter({ file: '' });
    reporter.onTestModuleQueued(module('node'));
    expect(() => reporter.onTestRunEnd()).not.toThrow();
  });
});
