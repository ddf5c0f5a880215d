import { availableParallelism, cpus, loadavg } from 'node:os';

/** The machine line RESULTS.md carries under the table. */
export function describeMachine(now = new Date()): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown CPU';
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
  return `${availableParallelism()} CPUs (nproc), ${model}, Node ${process.version}, ${process.platform}, load average at start ${load}, ${now.toISOString()}`;
}
