import { accessSync, constants } from 'node:fs';
import { availableParallelism } from 'node:os';

/** util-linux's `taskset`, when installed (Debian: package util-linux). */
function tasksetPath(): string | undefined {
  for (const path of ['/usr/bin/taskset', '/bin/taskset']) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // try the next one
    }
  }
  return undefined;
}

/**
 * The command that runs `node args…` on one CPU: `taskset -c <cpu> node args…` when `taskset`
 * is there and the machine has at least two CPUs, else plain `node args…` (`pinned: false`).
 * taskset execs node in place, so the pid is node's (its /proc figures are node's).
 */
export function pinnedNode(cpu: number | undefined, args: readonly string[]): { command: string; args: string[]; pinned: boolean } {
  const taskset = cpu === undefined || availableParallelism() < 2 ? undefined : tasksetPath();
  if (taskset === undefined) return { command: process.execPath, args: [...args], pinned: false };
  return { command: taskset, args: ['-c', String(cpu), process.execPath, ...args], pinned: true };
}

/** CPU numbers the bench pins to: servers under measurement on one, load generators on another. */
export const SERVER_CPU = 0;
export const LOAD_CPU = 1;
