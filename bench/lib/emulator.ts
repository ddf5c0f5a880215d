import { EMULATOR_ADMIN_ROUTES, EMULATOR_LISTENING_PREFIX, type EmulatorStats } from '@embedded-dashboard/protocol';
import { packageBin } from './pieces.js';
import { startServerProcess, type BenchProcess } from './process.js';

/** The vendor API token the bench's emulator accepts, and its environment. */
export const BENCH_API_KEY = 'bench-customer-key';
/** The embed secret every bench emulator takes, and the BFFs that mint embed tokens use (32 bytes in UTF-8). */
export const BENCH_EMBED_SECRET = { id: 'bench-embed-secret', value: 'bench-embed-secret-value-32bytes' } as const;

export interface BenchEmulator {
  url: string;
  stats(): Promise<EmulatorStats>;
  reset(): Promise<void>;
  stop(): Promise<void>;
  process: BenchProcess;
}

/**
 * Starts the emulator CLI (admin routes on, one Customer key, the bench's embed secret) in a child process. Without a
 * `--rate-limit` in `extraArgs` the vendor's limit is off: the rows that measure the BFF itself
 * must not be measuring the limit; the fleet row passes the vendor's `--rate-limit 180`.
 */
export async function startEmulator(logName: string, extraArgs: readonly string[] = []): Promise<BenchEmulator> {
  const script = packageBin('emulator', 'embedded-dashboard-emulator');
  const rateLimit = extraArgs.some((arg) => arg.startsWith('--rate-limit')) ? [] : ['--rate-limit', '0'];
  const child = await startServerProcess(
    script,
    [
      ...['--port', '0', '--host', '127.0.0.1', '--admin', '--api-key', `${BENCH_API_KEY}:Customer`],
      ...['--embed-secret', `${BENCH_EMBED_SECRET.id}:${BENCH_EMBED_SECRET.value}`, ...rateLimit, ...extraArgs],
    ],
    { readyPrefix: EMULATOR_LISTENING_PREFIX, logName },
  );
  const url = child.url.replace(/\/$/, '');
  return {
    url,
    process: child,
    stats: async () => {
      const response = await fetch(`${url}${EMULATOR_ADMIN_ROUTES.stats}`);
      if (!response.ok) throw new Error(`emulator stats answered ${response.status}`);
      return (await response.json()) as EmulatorStats;
    },
    reset: async () => {
      const response = await fetch(`${url}${EMULATOR_ADMIN_ROUTES.reset}`, { method: 'POST' });
      if (!response.ok) throw new Error(`emulator reset answered ${response.status}`);
    },
    stop: () => child.stop(),
  };
}
