/** Pure arithmetic of the fleet row (7): visits, emulator counters, Prometheus text, Redis INFO. */
import { percentile } from '../lib/stats.js';

/** One first visit: when it began, when (if ever) it got a token, how many requests it took. */
export interface Visit {
  arrivedAt: number;
  /** `undefined`: gave up at its bound without a token, or was refused for good. */
  servedAt: number | undefined;
  attempts: number;
}

export interface VisitSummary {
  /** Time to token of every served visit, ms, ascending. */
  timesMs: number[];
  p50Ms: number;
  p99Ms: number;
  neverServed: number;
}

export function summarizeVisits(visits: readonly Visit[]): VisitSummary {
  const timesMs = visits.flatMap((v) => (v.servedAt === undefined ? [] : [v.servedAt - v.arrivedAt])).sort((a, b) => a - b);
  return { timesMs, p50Ms: percentile(timesMs, 50), p99Ms: percentile(timesMs, 99), neverServed: visits.length - timesMs.length };
}

export type VendorOps = { getOrCreate: number; update: number; rotate: number };

/** The counters' growth between two `/__emulator/stats` answers. */
export function opsBetween(before: VendorOps, after: VendorOps): VendorOps {
  return { getOrCreate: after.getOrCreate - before.getOrCreate, update: after.update - before.update, rotate: after.rotate - before.rotate };
}

export const totalOps = (ops: VendorOps): number => ops.getOrCreate + ops.update + ops.rotate;

/**
 * Sum of a Prometheus counter over every series whose labels include `labels`
 * (`embed_bff_budget_used_total{priority="revalidation"} 3`). 0 when no series matches.
 */
export function sumCounter(text: string, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const series = match[2] ?? '';
    if (Object.entries(labels).every(([key, value]) => series.includes(`${key}="${value}"`))) sum += Number(match[3]);
  }
  return sum;
}

/**
 * Commands Redis executed, from `INFO commandstats` (`cmdstat_get:calls=12,...`): commands run
 * inside scripts count (they are work Redis does), `INFO` itself does not (only the bench sends it).
 */
export function redisCommands(info: string): number {
  let calls = 0;
  for (const match of info.matchAll(/^cmdstat_([a-z|_-]+):calls=(\d+)/gim)) {
    if (match[1]!.toLowerCase() !== 'info') calls += Number(match[2]);
  }
  return calls;
}

/** Even arrivals: visit `index` of `count` starts at this many ms after the first. */
export const arrivalOffsetMs = (index: number, count: number, spreadMs: number): number => (count <= 1 ? 0 : (index * spreadMs) / (count - 1));
