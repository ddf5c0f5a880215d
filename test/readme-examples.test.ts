/**
 * Every package README's examples marked `runnable` or `typecheck` (the word after the fence's
 * language: ```ts runnable) are type-checked and the `runnable` ones run in Node, both against the
 * built packages as an integrator gets them (`npm test` builds first). A README whose first TypeScript or
 * JavaScript example carries neither mark fails, so each package's first example is checked.
 *
 * In a runnable example, `http://127.0.0.1:8790` (the emulator's documented port) becomes a fresh
 * emulator on a free port, and a line ending in `// → text` must print exactly `text` (in order).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
// Inside the repository (so imports resolve through its node_modules), ignored by git and tsc.
const WORK_DIR = join(ROOT, 'node_modules', '.cache', 'readme-examples');
const EMULATOR_URL = 'http://127.0.0.1:8790';
const RUN_TIMEOUT_MS = 20_000;

interface Example {
  readme: string;
  line: number;
  lang: 'ts' | 'tsx' | 'js';
  mark: 'runnable' | 'typecheck';
  code: string;
}

function readmes(dir = join(ROOT, 'packages')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name === 'dist') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return readmes(path);
    return entry.name === 'README.md' ? [path] : [];
  });
}

/** The fenced ts/tsx/js blocks of a README, marked or not, in order. */
function codeBlocks(path: string): Array<Omit<Example, 'mark'> & { mark: string | undefined }> {
  const blocks: Array<Omit<Example, 'mark'> & { mark: string | undefined }> = [];
  const lines = readFileSync(path, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(ts|tsx|js)(?:\s+(\S+))?\s*$/.exec(lines[i]!);
    if (open === null) continue;
    const end = lines.indexOf('```', i + 1);
    blocks.push({ readme: relative(ROOT, path), line: i + 1, lang: open[1] as Example['lang'], mark: open[2], code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

const files = readmes();
const examples = files.flatMap(codeBlocks).filter((block): block is Example => block.mark === 'runnable' || block.mark === 'typecheck');
const fileOf = (example: Example, ext: string) => join(WORK_DIR, `${example.readme.replace(/[/.]/g, '_')}_${example.line}.${ext}`);

let emulator: RunningEmulator;
beforeAll(async () => {
  rmSync(WORK_DIR, { recursive: true, force: true });
  mkdirSync(WORK_DIR, { recursive: true });
  emulator = await startEmulator({ port: 0 });
});
afterAll(async () => {
  await emulator?.close();
  rmSync(WORK_DIR, { recursive: true, force: true });
});

describe('README examples', () => {
  it.each(files.map((file) => relative(ROOT, file)))('%s: its first TypeScript/JavaScript example is checked (marked runnable or typecheck)', (readme) => {
    const first = codeBlocks(join(ROOT, readme))[0];
    if (first === undefined) return;
    expect(first.mark, `${readme}:${first.line}`).toMatch(/^(runnable|typecheck)$/);
  });

  it('type-check against the built packages', () => {
    const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined })!;
    const roots = examples.map((example) => {
      const path = fileOf(example, example.lang);
      writeFileSync(path, `${example.code}\nexport {};\n`);
      return path;
    });
    // No `paths`: the packages resolve as an integrator's do, to their built `.d.ts` files.
    const options = {
      ...config.options,
      paths: undefined,
      baseUrl: undefined,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      jsx: ts.JsxEmit.ReactJSX,
      types: ['node'],
    };
    const program = ts.createProgram(roots, options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file !== undefined && roots.includes(d.file.fileName))
      .map((d) => {
        const example = examples[roots.indexOf(d.file!.fileName)]!;
        const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
        return `${example.readme}:${example.line + 1 + line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
      });
    expect(problems).toEqual([]);
  }, 120_000);

  it.each(examples.filter((e) => e.mark === 'runnable').map((e) => [`${e.readme}:${e.line}`, e] as const))('%s runs', async (_, example) => {
    const js = ts.transpileModule(example.code.replaceAll(EMULATOR_URL, emulator.url), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, jsx: ts.JsxEmit.ReactJSX },
    }).outputText;
    const path = fileOf(example, 'mjs');
    writeFileSync(path, js);
    const { code, stdout, stderr } = await runNode(path, {
      EMBED_API_TOKEN: 'dev-customer-key',
      EMBED_SESSION_SECRET: 'readme-example-session-secret-0123456789',
    });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const expected = [...example.code.matchAll(/\/\/ → (.*)$/gm)].map((m) => m[1]!.trim());
    if (expected.length > 0) expect(stdout.trimEnd().split('\n')).toEqual(expected);
  });
});

function runNode(path: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr: code === null ? `${stderr}(killed after ${RUN_TIMEOUT_MS} ms)` : stderr });
    });
  });
}
