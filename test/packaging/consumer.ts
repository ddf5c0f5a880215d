/**
 * A consumer project outside the workspace, as an integrator has one: our packages come from
 * `npm pack` tarballs (never workspace links), everything else from the npm registry at the
 * exact versions this repository locks (so `npm ci`'s cache answers and no network is needed).
 * One such project is installed per test run (global-setup.ts) and shared by every check.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cp, mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { freePort } from '../support/ports.js';

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every publishable workspace, by folder under packages/. */
export const PUBLISHED_PACKAGES = ['protocol', 'client', 'emulator', 'bff', 'element', 'react', 'vite'] as const;

/**
 * What the consumer installs from the registry besides our tarballs: what an integrator's app
 * would have (frameworks, their build tools, types). Versions are the ones this repository locks.
 */
export const CONSUMER_DEPENDENCIES = [
  'typescript',
  '@types/node',
  'vite',
  'jose',
  'react',
  'react-dom',
  '@types/react',
  '@types/react-dom',
  'next',
  'vue',
  '@vitejs/plugin-vue',
  'svelte',
  '@sveltejs/vite-plugin-svelte',
  '@angular/core',
  '@angular/common',
  '@angular/compiler',
  '@angular/compiler-cli',
  '@angular/platform-browser',
  'rxjs',
  'express',
  '@types/express',
  'fastify',
  // examples/cloudflare-workers type-checks against the Workers types (wrangler builds it from the repository's install).
  '@cloudflare/workers-types',
] as const;

/** The version of `name` this repository installs (what package-lock.json says). */
export function lockedVersion(name: string): string {
  const lock = JSON.parse(readFileSync(join(REPOSITORY_ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  const version = lock.packages[`node_modules/${name}`]?.version;
  if (!version) throw new Error(`${name} is not in package-lock.json: add it to the root devDependencies`);
  return version;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion (bounded by `timeoutMs`); never throws on a non-zero exit. */
export function run(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; signal?: AbortSignal },
): Promise<RunResult> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      {
        cwd: options.cwd,
        env: { ...process.env, ...options.env },
        timeout: options.timeoutMs ?? 300_000,
        maxBuffer: 64 * 1024 * 1024,
        killSignal: 'SIGKILL',
        signal: options.signal,
      },
      (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/** Like {@link run}, but throws with the whole output when the command fails. */
export async function runOk(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; timeoutMs?: number; signal?: AbortSignal },
): Promise<RunResult> {
  const result = await run(command, args, options);
  if (result.code !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.code}) in ${options.cwd}:\n${result.stdout}\n${result.stderr}`);
  return result;
}

/**
 * The packaging tests' consumer project: every published workspace packed into `base/tarballs` and
 * installed into a fresh `base/app`, outside the workspace. Returns the app's directory.
 */
export async function createConsumerProject(base: string): Promise<string> {
  const tarballs = await packWorkspaces(join(base, 'tarballs'));
  const consumerDir = join(base, 'app');
  await installConsumer(consumerDir, tarballs);
  return consumerDir;
}

/** `npm pack`s every published workspace into `destination`; returns package name → tarball path. */
export async function packWorkspaces(destination: string): Promise<Map<string, string>> {
  await mkdir(destination, { recursive: true });
  const args = ['pack', '--json', '--pack-destination', destination, ...PUBLISHED_PACKAGES.flatMap((name) => ['-w', `packages/${name}`])];
  const { stdout } = await runOk('npm', args, { cwd: REPOSITORY_ROOT, env: { npm_config_loglevel: 'error' } });
  const packed = JSON.parse(stdout) as { name: string; filename: string }[];
  const tarballs = new Map(packed.map((entry) => [entry.name, join(destination, entry.filename.replace(/^@/, '').replace(/\//, '-'))]));
  const present = new Set(await readdir(destination));
  for (const path of tarballs.values()) if (!present.has(path.slice(destination.length + 1))) throw new Error(`npm pack did not write ${path}`);
  return tarballs;
}

/** Writes the consumer's package.json and installs it, offline-first from npm's cache. */
export async function installConsumer(directory: string, tarballs: Map<string, string>): Promise<void> {
  const dependencies: Record<string, string> = {};
  for (const [name, path] of tarballs) dependencies[name] = `file:${path}`;
  for (const name of CONSUMER_DEPENDENCIES) dependencies[name] = lockedVersion(name);
  await mkdir(directory, { recursive: true });
  await writeFile(join(directory, 'package.json'), `${JSON.stringify({ name: 'integrator-app', private: true, type: 'module', dependencies }, null, 2)}\n`);
  await runOk('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: directory, timeoutMs: 600_000 });
}

export interface ServerProcess {
  child: ChildProcess;
  /** What followed the ready prefix on the ready line (usually the URL). */
  url: string;
  output: string[];
  stop(): Promise<void>;
}

/**
 * Starts a long-running command and resolves on the first output line containing
 * `readyText`, with the text after it. Rejects with the output if it exits or times out first.
 */
export function startServer(
  command: string,
  args: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; readyText: string | RegExp; timeoutMs?: number },
): Promise<ServerProcess> {
  const child = spawn(command, args, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output: string[] = [];
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // The whole process group: `npx`/`next start` run the server as a child of their own.
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      return;
    }
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = options.timeoutMs ?? 30_000;
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`${command} ${args.join(' ')} was not ready within ${timeoutMs} ms:\n${output.join('\n')}`));
    }, timeoutMs);
    const onLine = (line: string) => {
      output.push(line);
      const match = typeof options.readyText === 'string' ? line.indexOf(options.readyText) : line.search(options.readyText);
      if (match !== -1) {
        clearTimeout(timer);
        const rest = typeof options.readyText === 'string' ? line.slice(match + options.readyText.length) : line.slice(match).replace(options.readyText, '');
        resolve({ child, url: rest.trim(), output, stop });
      }
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')} exited (${child.exitCode ?? child.signalCode}) before it was ready:\n${output.join('\n')}`));
    });
  });
}

/** Copies `test/packaging/fixtures/<name>` (or another repository folder) into the consumer project; returns its path there. */
export async function copyIntoConsumer(consumerDir: string, from: string, to: string): Promise<string> {
  const target = join(consumerDir, to);
  await rm(target, { recursive: true, force: true });
  await cp(join(REPOSITORY_ROOT, from), target, {
    recursive: true,
    // What a checkout has after a local run of the example; never copied.
    filter: (source) => !/[/\\](node_modules|\.next|dist|package-lock\.json)$/.test(source),
  });
  return target;
}

/**
 * Starts `vite` (dev) in an app of the consumer project on a free port; ready once
 * `@embedded-dashboard/vite` prints its BFF line. Returns the server and its base URL.
 */
export async function startViteDev(consumerDir: string, app: string): Promise<{ vite: ServerProcess; base: string }> {
  const port = await freePort();
  const vite = await startServer(join(consumerDir, 'node_modules/.bin/vite'), ['--host', '127.0.0.1', '--port', String(port), '--strictPort'], {
    cwd: app,
    env: { NO_COLOR: '1' },
    readyText: 'embedded-dashboard: BFF at ',
    timeoutMs: 60_000,
  });
  return { vite, base: `http://127.0.0.1:${port}` };
}
