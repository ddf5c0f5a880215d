import { BFF_LISTENING_PREFIX, DEFAULT_BFF_BASE_PATH, BFF_ROUTES } from '@embedded-dashboard/protocol';
import { BENCH_API_KEY } from './emulator.js';
import { packageBin } from './pieces.js';
import { startServerProcess, type BenchProcess } from './process.js';
import { SESSION } from './session.js';

export interface BffOptions {
  upstreamUrl: string;
  logName: string;
  redisUrl?: string;
  /** Extra environment, e.g. a shorter token TTL. */
  env?: Record<string, string>;
  /** Run on this CPU only (`taskset`), when the machine can. */
  cpu?: number;
  /** How long it may take to say it listens; default that of `startServerProcess` (20 s). */
  startTimeoutMs?: number;
}

/** The URL of the token route of a BFF listening at `baseUrl`. */
export const tokenUrl = (baseUrl: string): string => `${baseUrl.replace(/\/$/, '')}${DEFAULT_BFF_BASE_PATH}${BFF_ROUTES.token}`;

/**
 * Starts the BFF exactly as an integrator runs it in production: its CLI, configured through
 * the environment, in its own process.
 */
export function startBff(options: BffOptions): Promise<BenchProcess> {
  const script = packageBin('bff', 'embedded-dashboard-bff');
  return startServerProcess(script, [], {
    readyPrefix: BFF_LISTENING_PREFIX,
    logName: options.logName,
    ...(options.cpu === undefined ? {} : { cpu: options.cpu }),
    ...(options.startTimeoutMs === undefined ? {} : { timeoutMs: options.startTimeoutMs }),
    env: {
      EMBED_UPSTREAM_URL: options.upstreamUrl,
      EMBED_API_TOKEN: BENCH_API_KEY,
      EMBED_PORT: '0',
      EMBED_HOST: '127.0.0.1',
      EMBED_SESSION_SECRET: SESSION.secret,
      EMBED_SESSION_ISSUER: SESSION.issuer,
      EMBED_SESSION_AUDIENCE: SESSION.audience,
      EMBED_ALLOWED_ORIGINS: SESSION.origin,
      EMBED_EXPECT_ENVIRONMENT: 'Customer',
      EMBED_REDIS_URL: options.redisUrl,
      // The rows that measure the BFF itself run without the vendor budget (as their emulator runs
      // without the vendor's limit); the fleet row sets both.
      EMBED_UPSTREAM_RATE: '0',
      ...options.env,
    },
  });
}
