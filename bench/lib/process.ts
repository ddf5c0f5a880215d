import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { scratchDir } from './paths.js';
import { pinnedNode } from './pin.js';

export interface BenchProcess {
  child: ChildProcess;
  /** The URL printed after the ready prefix. */
  url: string;
  /** Where the process's stdout and stderr go. */
  logFile: string;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface StartOptions {
  readyPrefix: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** Name of the log file under bench/.tmp. */
  logName: string;
  /** Run on this CPU only (`taskset`), when the machine can. */
  cpu?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts `node script ...args` as a server under load and resolves with the URL of its ready line.
 * Its output goes to a file rather than a pipe: a server that logs every request must never block
 * on, or spend the bench's CPU in, a parent reading its pipe.
 */
export async function startServerProcess(script: string, args: readonly string[], options: StartOptions): Promise<BenchProcess> {
  mkdirSync(scratchDir, { recursive: true });
  const logFile = join(scratchDir, `${options.logName}.log`);
  const fd = openSync(logFile, 'w');
  const node = pinnedNode(options.cpu, [script, ...args]);
  const child = spawn(node.command, node.args, { env: { ...process.env, ...options.env }, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (graceMs = 5_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + (options.timeoutMs ?? 20_000);
  for (;;) {
    const output = readFileSync(logFile, 'utf8');
    const line = output.split('\n').find((candidate) => candidate.includes(options.readyPrefix));
    if (line) return { child, url: line.slice(line.indexOf(options.readyPrefix) + options.readyPrefix.length).trim(), logFile, stop };
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${options.logName} exited before it was ready: ${tail(output)}`);
    if (Date.now() > deadline) {
      await stop(0);
      throw new Error(`${options.logName} printed no "${options.readyPrefix}" in time: ${tail(output)}`);
    }
    await sleep(50);
  }
}

/**
 * Runs `node script` with `input` as JSON on stdin and resolves with the JSON it prints on its
 * last stdout line (how the load generator reports).
 */
export function runJsonProcess<T>(script: string, input: unknown, timeoutMs: number, cpu?: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const node = pinnedNode(cpu, [script]);
    const child = spawn(node.command, node.args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      const last = stdout.trim().split('\n').pop() ?? '';
      if (code !== 0) return reject(new Error(`${script} exited with ${code ?? signal}: ${tail(stderr || stdout)}`));
      try {
        resolve(JSON.parse(last) as T);
      } catch {
        reject(new Error(`${script} printed no JSON result: ${tail(stdout)}`));
      }
    });
    child.stdin.end(JSON.stringify(input));
  });
}

const tail = (text: string) => text.trim().split('\n').slice(-5).join(' / ').slice(-600);
