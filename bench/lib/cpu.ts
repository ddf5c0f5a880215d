import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used so far, from Linux's /proc; NaN elsewhere.
 * Lets the throughput row say whether a server was CPU-bound or starved by the load generator.
 */
export function cpuSeconds(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return ticks / 100;
  } catch {
    return Number.NaN;
  }
}
