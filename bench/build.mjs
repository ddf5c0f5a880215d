#!/usr/bin/env node
// `npm run bench:quick`'s build: bench/ and the test helpers it imports, transpiled file by file
// with esbuild into bench/dist/ (the layout `tsc -p bench/tsconfig.json` gives: bench/dist/bench/...,
// bench/dist/test/...), without type checking. CI type-checks bench/ already (`npm run typecheck`
// includes bench/**/*.ts); tsc's emit of the same files took 10-50 s of the quick run's budget.
// `npm run bench` still builds with tsc, checking the types first.
import { readdirSync, readFileSync, mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const benchDir = dirname(fileURLToPath(import.meta.url));
const repoDir = resolve(benchDir, '..');
const outDir = join(benchDir, 'dist');
// The same compiler settings as tsconfig.json where they change the emitted code.
const tsconfigRaw = { compilerOptions: { useDefineForClassFields: false, experimentalDecorators: true, verbatimModuleSyntax: true } };

/** Every non-test .ts file under `dir`, as tsc's include of bench/tsconfig.json sees it. */
function sources(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!['dist', 'node_modules', '.tmp', 'entries', 'plots'].includes(entry.name)) out.push(...sources(path));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') && !entry.name.endsWith('.d.ts')) {
      out.push(path);
    }
  }
  return out;
}

/** The relative imports of a module (static and dynamic), as .ts paths that exist. */
function localImports(file, text) {
  const found = [];
  for (const match of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) {
    const target = resolve(dirname(file), match[1]).replace(/\.js$/, '.ts');
    if (existsSync(target)) found.push(target);
  }
  return found;
}

const started = performance.now();
const queue = sources(benchDir);
const seen = new Set(queue);
const jobs = [];
while (queue.length > 0) {
  const file = queue.pop();
  const text = readFileSync(file, 'utf8');
  for (const dependency of localImports(file, text)) {
    if (!seen.has(dependency)) {
      seen.add(dependency);
      queue.push(dependency);
    }
  }
  jobs.push(
    transform(text, { loader: 'ts', format: 'esm', target: 'es2022', sourcefile: file, tsconfigRaw }).then(({ code }) => {
      const out = join(outDir, relative(repoDir, file)).replace(/\.ts$/, '.js');
      mkdirSync(dirname(out), { recursive: true });
      writeFileSync(out, code);
    }),
  );
}
await Promise.all(jobs);
console.error(
  `bench: built ${jobs.length} files into bench/dist with esbuild in ${((performance.now() - started) / 1000).toFixed(1)} s (no type check: npm run typecheck covers bench/)`,
);
