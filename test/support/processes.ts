import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface RunningProcess {
  child: ChildProcess;
  /** The URL printed on the ready line (`… listening on http://HOST:PORT`). */
  url: string;
  /** Every line the process printed so far, stdout and stderr interleaved. */
  output: string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
}

export interface StartOptions {
  env?: Record<string, string | undefined>;
  /** The prefix of the line that says the process is ready, e.g. `emulator listening on `. */
  readyPrefix: string;
  timeoutMs?: number;
  cwd?: string;
  /** The runtime and its arguments before the script; default this Node (`process.execPath`). */
  runtime?: readonly string[];
}

/**
 * Starts `node script ...args` (or the script under `options.runtime`) and resolves once it
 * prints its ready line, with the URL that follows the prefix. Rejects with everything it printed
 * if it exits or times out first.
 */
export function startNodeProcess(script: string, args: string[], options: StartOptions): Promise<RunningProcess> {
  const [command, ...runtimeArgs] = options.runtime ?? [process.execPath];
  const child = spawn(command!, [...runtimeArgs, script, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (graceMs = 5_000) => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const code = await exited;
    clearTimeout(timer);
    return code;
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void stop(0);
      reject(new Error(`${script} did not print "${options.readyPrefix}" within ${options.timeoutMs ?? 15_000} ms:\n${output.join('\n')}`));
    }, options.timeoutMs ?? 15_000);
    const onLine = (line: string) => {
      output.push(line);
      const at = line.indexOf(options.readyPrefix);
      if (at !== -1) {
        clearTimeout(timer);
        resolve({ child, url: line.slice(at + options.readyPrefix.length).trim(), output, stop });
      }
    };
    createInterface({ input: child.stdout }).on('line', onLine);
    createInterface({ input: child.stderr }).on('line', onLine);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code} before it was ready:\n${output.join('\n')}`));
    });
  });
}

/** Whether a process of this id is running (signal 0 reaches it). */
export const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
