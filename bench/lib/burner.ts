import { spawn, type ChildProcess } from 'node:child_process';

/** A burner never outlives this, even if the bench is killed before it can stop it. */
const MAX_BURN_MS = 10 * 60_000;

export interface Burner {
  /** What the load is, for the row. */
  description: string;
  stop(): Promise<void>;
}

/**
 * Another CPU-bound process on the machine: one Node child spinning a busy loop, not pinned
 * (the OS schedules it like any other job). It stops itself after `MAX_BURN_MS` at the latest.
 */
export function startBurner(): Burner {
  const child: ChildProcess = spawn(process.execPath, ['-e', `const end = Date.now() + ${MAX_BURN_MS}; while (Date.now() < end) {}`], {
    stdio: 'ignore',
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    description: 'one busy-loop Node process (not pinned) running throughout',
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
