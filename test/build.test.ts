import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BUILD = fileURLToPath(new URL('../scripts/build.mjs', import.meta.url));

/**
 * `npm run build` (scripts/build.mjs) in a checkout shaped like ours, whose `build:always` is a
 * small script that writes packages/a/dist from packages/a/src and counts its runs: what is proven
 * is when the real build is skipped and when it runs again. One checkout for the file, each test
 * leaving it built (the last one removes its .git).
 */
describe('npm run build skips a build whose inputs did not change', () => {
  let repo: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  };
  const builds = () => readFileSync(join(repo, 'builds.txt'), 'utf8').split('\n').filter(Boolean).length;
  let counted = 0;
  /** `npm run build` in the checkout: its exit status, what it printed, and whether the real build ran. */
  const build = (env: Record<string, string> = {}, args: string[] = []) => {
    const run = spawnSync(process.execPath, [BUILD, ...args], { cwd: repo, encoding: 'utf8', env: { ...process.env, npm_execpath: '', ...env } });
    const before = counted;
    counted = builds();
    return { status: run.status, output: run.stdout + run.stderr, built: counted > before };
  };
  const git = (...args: string[]) => {
    const run = spawnSync('git', args, { cwd: repo, encoding: 'utf8' });
    if (run.status !== 0) throw new Error(`git ${args.join(' ')}: ${run.stderr}`);
  };

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'embedded-dashboard-build-'));
    write('.gitignore', 'node_modules/\ndist/\nbuilds.txt\n*.log\n');
    write('package.json', JSON.stringify({ name: 'fixture', private: true, scripts: { 'build:always': 'node make.mjs' } }));
    write('package-lock.json', '{"lockfileVersion":3}\n');
    write(
      'make.mjs',
      [
        "import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';",
        "appendFileSync('builds.txt', 'built\\n');",
        'if (process.env.FAIL_BUILD) process.exit(3);',
        "mkdirSync('packages/a/dist', { recursive: true });",
        "writeFileSync('packages/a/dist/x.js', readFileSync('packages/a/src/x.ts', 'utf8').toUpperCase());",
      ].join('\n'),
    );
    write('packages/a/src/x.ts', 'export const x = 1;\n');
    write('demo/index.html', '<p>demo</p>\n');
    git('init', '-q');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.test', 'commit', '-qm', 'fixture');
    const first = build();
    expect(first.status).toBe(0);
    expect(first.built).toBe(true);
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('skips when nothing changed, and says so', () => {
    const second = build();
    expect(second.status).toBe(0);
    expect(second.built).toBe(false);
    expect(second.output).toMatch(/^build: skipped, nothing it reads changed since the last build/m);
    expect(readFileSync(join(repo, 'packages/a/dist/x.js'), 'utf8')).toBe('EXPORT CONST X = 1;\n');
  });

  it('rebuilds after an edited, a new or a deleted source, and tests the new code', () => {
    write('packages/a/src/x.ts', 'export const x = 2;\n');
    const edited = build();
    expect(edited.built).toBe(true);
    expect(edited.output).not.toMatch(/skipped/);
    expect(readFileSync(join(repo, 'packages/a/dist/x.js'), 'utf8')).toBe('EXPORT CONST X = 2;\n');
    expect(build().built).toBe(false);

    write('packages/a/src/y.ts', 'export const y = 1;\n');
    expect(build().built).toBe(true);
    rmSync(join(repo, 'demo/index.html'));
    expect(build().built).toBe(true);
  });

  it('rebuilds after a changed lockfile or root configuration', () => {
    write('package-lock.json', '{"lockfileVersion":3,"packages":{}}\n');
    expect(build().built).toBe(true);
    write('tsconfig.json', '{}\n');
    expect(build().built).toBe(true);
  });

  it('does not rebuild for files the build does not read (ignored by git, or outside packages/ and demo/)', () => {
    write('packages/a/debug.log', 'noise\n');
    write('docs/notes.md', 'notes\n');
    expect(build().built).toBe(false);
  });

  it('rebuilds when an output was edited or deleted', () => {
    write('packages/a/dist/x.js', 'edited by hand');
    expect(build().built).toBe(true);
    expect(readFileSync(join(repo, 'packages/a/dist/x.js'), 'utf8')).toBe('EXPORT CONST X = 2;\n');

    rmSync(join(repo, 'packages/a/dist'), { recursive: true });
    expect(build().built).toBe(true);
  });

  it('builds again after a failed build, even with the same inputs', () => {
    write('packages/a/src/x.ts', 'export const x = 3;\n');
    const failed = build({ FAIL_BUILD: '1' });
    expect(failed.status).toBe(3);
    const next = build();
    expect(next.status).toBe(0);
    expect(next.built).toBe(true);
  });

  it('a skipped build leaves outputs newer than their sources, for mtime checks (test/support/fresh-build.ts)', () => {
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(repo, 'packages/a/dist/x.js'), old, old);
    // The same content written again (a checkout, a stash and pop): newer than its output, nothing to build.
    write('packages/a/src/x.ts', 'export const x = 3;\n');
    expect(build().built).toBe(false);
    expect(statSync(join(repo, 'packages/a/dist/x.js')).mtimeMs).toBeGreaterThanOrEqual(statSync(join(repo, 'packages/a/src/x.ts')).mtimeMs);
  });

  it('builds when asked to (--force, `npm run build:always`) and always outside a git checkout', () => {
    expect(build({}, ['--force']).built).toBe(true);
    rmSync(join(repo, '.git'), { recursive: true });
    const outside = build();
    expect(outside.output).toMatch(/not a git checkout, building/);
    expect(outside.built).toBe(true);
    expect(build().built).toBe(true);
  });
});
