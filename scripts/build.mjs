#!/usr/bin/env node
// `npm run build`: runs `npm run build:always` (every package, then the demo) unless nothing it reads
// changed since the last successful build here. `.ci/run` builds in `npm ci`'s `prepare` and then
// `npm test` builds again: that second build (about 40 s on two cores) became a no-op.
//
// The last build's stamp (under node_modules/.cache, so `npm ci` and a fresh clone start without
// one) holds a digest of the build's inputs: the content of every file git sees (tracked, or new and
// not ignored) under packages/ and demo/, the root package.json, package-lock.json, tsconfig.json
// and vite.config.ts, and the Node version; and a digest of its outputs (every dist/ and the element's
// custom-elements.json). The build is skipped only when both are what the stamp says; an edited, new
// or deleted source, a changed lockfile, or an edited or missing output rebuilds. Outside a git
// checkout it always builds. `npm run build:always` always builds.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const ROOT_INPUTS = ['package.json', 'package-lock.json', 'tsconfig.json', 'vite.config.ts'];
const INPUT_DIRS = ['packages', 'demo'];
/** Written by the build although git tracks it (the element's manifest, checked by a test). */
const TRACKED_OUTPUTS = ['packages/element/custom-elements.json'];
const STAMP = join(root, 'node_modules', '.cache', 'embedded-dashboard', 'build-stamp.json');

function inputFiles() {
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', ...INPUT_DIRS, ...ROOT_INPUTS], {
    cwd: root,
    encoding: 'utf8',
  });
  if (listed.status !== 0) return undefined;
  const files = new Set(listed.stdout.split('\0').filter((file) => file !== '' && !TRACKED_OUTPUTS.includes(file)));
  return [...files].sort();
}

function outputFiles() {
  const dirs = ['demo/dist'];
  if (existsSync(join(root, 'packages'))) {
    for (const name of readdirSync(join(root, 'packages')).sort()) dirs.push(`packages/${name}/dist`);
  }
  const files = [];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  for (const dir of dirs) if (existsSync(join(root, dir))) walk(dir);
  return [...files, ...TRACKED_OUTPUTS.filter((file) => existsSync(join(root, file)))];
}

/** One digest of the files' paths and contents (a deleted file counts as its absence). */
function digest(files, extra = '') {
  const hash = createHash('sha256').update(extra);
  for (const file of files) {
    hash.update(`\0${file}\0`);
    try {
      hash.update(readFileSync(join(root, file)));
    } catch {
      hash.update('\0missing');
    }
  }
  return hash.digest('hex');
}

function readStamp() {
  try {
    return JSON.parse(readFileSync(STAMP, 'utf8'));
  } catch {
    return undefined;
  }
}

const force = process.argv.includes('--force');
const inputs = inputFiles();
const inputDigest = inputs && digest(inputs, `node ${process.version}\n`);
const stamp = readStamp();
if (!force && inputDigest && stamp?.inputs === inputDigest) {
  const outputs = outputFiles();
  if (outputs.length > 0 && digest(outputs) === stamp.outputs) {
    // The outputs are as current as a build now would make them: say so to mtime-based checks too
    // (test/support/fresh-build.ts), which a checkout that rewrote identical sources would trip.
    const now = new Date();
    for (const file of outputs) utimesSync(join(root, file), now, now);
    console.log(
      `build: skipped, nothing it reads changed since the last build (${inputs.length} inputs, ${outputs.length} outputs as built); \`npm run build:always\` builds anyway`,
    );
    process.exit(0);
  }
}
if (!inputDigest) console.log('build: not a git checkout, building (nothing to compare with)');

// A build that stops half-way (failed, interrupted) leaves no stamp: the next one builds.
rmSync(STAMP, { force: true });
const npm = process.env.npm_execpath;
const built = npm
  ? spawnSync(process.execPath, [npm, 'run', 'build:always'], { cwd: root, stdio: 'inherit' })
  : spawnSync('npm', ['run', 'build:always'], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
if (inputDigest) {
  mkdirSync(join(STAMP, '..'), { recursive: true });
  writeFileSync(STAMP, `${JSON.stringify({ inputs: inputDigest, outputs: digest(outputFiles()) }, null, 2)}\n`);
}
