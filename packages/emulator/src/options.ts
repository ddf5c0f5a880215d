import { ENVIRONMENTS, type Environment, type FaultSettings } from '@embedded-dashboard/protocol';
import { resolveEmbedSecrets, type EmbedSecret, type EmbedSecretOption } from './embed/embed-secrets.js';
import { parseFaultSettings } from './faults/settings.js';

/**
 * How an emulator behaves. Every field is optional.
 *
 * @example
 * ```ts
 * const emulator = createEmulator({ tokenTtlSeconds: 60, admin: true });
 * ```
 */
export interface EmulatorOptions {
  /** Accepted API keys and the environment each is bound to. Default: {@link DEFAULT_API_KEYS}. */
  apiKeys?: { token: string; environment: Environment }[];
  /** User group tokens stop working this many seconds after issue; `0` (default) never. */
  tokenTtlSeconds?: number;
  /** A rotated-out token keeps working for dashboards this many seconds; default `0`. */
  rotationGraceSeconds?: number;
  /** Origins allowed to frame dashboards (`*` may stand for the port). Default: {@link DEFAULT_EMBED_ORIGINS}. */
  embedOrigins?: string[];
  /** Mount the `/__emulator/*` admin routes. Default `false` (they answer 404). */
  admin?: boolean;
  /** Persist groups and tokens to this JSON file (atomic writes). Default: memory only. */
  dataFile?: string;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
  /** Initial fault settings. Default: none. */
  faults?: FaultSettings;
  /** Largest accepted request body in bytes. Default {@link DEFAULT_MAX_BODY_BYTES}. */
  maxBodyBytes?: number;
  /**
   * How often an open dashboard page re-fetches its data, in seconds; this is also how soon it
   * notices a token that stopped working and says `tokenExpired`. Default `15`.
   */
  dashboardRefreshSeconds?: number;
  /**
   * Requests a minute each API key may make to `/api/user` (a token bucket: a minute's worth at
   * once, then the steady rate); over it, `429 rate_limited` with `Retry-After`. `0` (default)
   * is no limit. The CLI's default is {@link DEFAULT_CLI_RATE_LIMIT_PER_MINUTE}, the vendor's.
   */
  rateLimitPerMinute?: number;
  /**
   * The rate limit's bucket size: requests a quiet key may make at once. Default: a minute's
   * worth (`rateLimitPerMinute`). Tests compress the vendor's minute with a high rate and the
   * vendor's burst (e.g. 1800 a minute, burst 180: the vendor's bucket, ten times as fast).
   */
  rateLimitBurst?: number;
  /**
   * Embed secrets (the vendor's "embed secrets": id and value): the dashboard host accepts embed
   * tokens encrypted with them (`/iframe/<jwt>/<environment>`), and the Customer API's
   * `generate_jwt` encrypts with them. Each value must be 32 bytes in UTF-8. Default: none (the
   * host still accepts tokens from `generate_jwt` without a `key_id`, encrypted with a secret the
   * emulator generated).
   */
  embedSecrets?: EmbedSecretOption[];
}

/** The dev keys used when none are configured; printed by the CLI at start. */
export const DEFAULT_API_KEYS: readonly { token: string; environment: Environment }[] = [
  { token: 'dev-customer-key', environment: 'Customer' },
  { token: 'dev-testing-key', environment: 'Testing' },
];
export const DEFAULT_EMBED_ORIGINS: readonly string[] = ['http://localhost:*', 'http://127.0.0.1:*'];
export const DEFAULT_MAX_BODY_BYTES = 64 * 1024;
export const DEFAULT_DASHBOARD_REFRESH_SECONDS = 15;
/**
 * The CLI's `--rate-limit` default: the vendor's documented 180 requests a minute
 * (https://docs.explo.co/security/rate-limits), so a local fleet meets the limit it will meet live.
 */
export const DEFAULT_CLI_RATE_LIMIT_PER_MINUTE = 180;

export interface ResolvedOptions {
  apiKeys: Map<string, Environment>;
  tokenTtlMs: number;
  rotationGraceMs: number;
  embedOrigins: string[];
  admin: boolean;
  dataFile: string | undefined;
  now: () => number;
  faults: FaultSettings;
  maxBodyBytes: number;
  dashboardRefreshMs: number;
  rateLimitPerMinute: number;
  rateLimitBurst: number;
  embedSecrets: EmbedSecret[];
}

function seconds(name: string, value: number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number of seconds`);
  return value * 1000;
}

/** Merges defaults and validates; throws a `TypeError` naming the bad option. */
export function resolveOptions(options: EmulatorOptions = {}): ResolvedOptions {
  const apiKeys = new Map<string, Environment>();
  const keys = options.apiKeys ?? DEFAULT_API_KEYS;
  const given: unknown = keys;
  if (!Array.isArray(given) || keys.length === 0) throw new TypeError('apiKeys must be a non-empty array');
  for (const key of keys) {
    if (typeof key?.token !== 'string' || !/^[\x21-\x7e]+$/.test(key.token))
      throw new TypeError('apiKeys[].token must be non-empty printable ASCII without spaces');
    if (!ENVIRONMENTS.includes(key.environment)) throw new TypeError(`apiKeys[].environment must be one of ${ENVIRONMENTS.join(', ')}`);
    if (apiKeys.has(key.token)) throw new TypeError('apiKeys must not repeat a token');
    apiKeys.set(key.token, key.environment);
  }
  const embedOrigins = options.embedOrigins ?? [...DEFAULT_EMBED_ORIGINS];
  if (!Array.isArray(embedOrigins) || !embedOrigins.every((origin) => typeof origin === 'string' && origin !== '')) {
    throw new TypeError('embedOrigins must be an array of origins');
  }
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  if (!Number.isSafeInteger(maxBodyBytes) || maxBodyBytes < 1) throw new TypeError('maxBodyBytes must be a positive integer');
  if (options.dataFile !== undefined && (typeof options.dataFile !== 'string' || options.dataFile === '')) throw new TypeError('dataFile must be a path');
  if (options.now !== undefined && typeof options.now !== 'function') throw new TypeError('now must be a function');
  const dashboardRefreshSeconds = options.dashboardRefreshSeconds ?? DEFAULT_DASHBOARD_REFRESH_SECONDS;
  if (
    typeof dashboardRefreshSeconds !== 'number' ||
    !Number.isFinite(dashboardRefreshSeconds) ||
    dashboardRefreshSeconds < 0.1 ||
    dashboardRefreshSeconds > 86_400
  ) {
    throw new TypeError('dashboardRefreshSeconds must be a number of seconds from 0.1 to 86400');
  }
  const rateLimitPerMinute = options.rateLimitPerMinute ?? 0;
  if (!Number.isSafeInteger(rateLimitPerMinute) || rateLimitPerMinute < 0)
    throw new TypeError('rateLimitPerMinute must be a non-negative integer (0 = no limit)');
  const rateLimitBurst = options.rateLimitBurst ?? rateLimitPerMinute;
  if (options.rateLimitBurst !== undefined && (!Number.isSafeInteger(rateLimitBurst) || rateLimitBurst < 1 || rateLimitPerMinute === 0)) {
    throw new TypeError('rateLimitBurst must be a positive integer, with rateLimitPerMinute set');
  }
  return {
    apiKeys,
    tokenTtlMs: seconds('tokenTtlSeconds', options.tokenTtlSeconds),
    rotationGraceMs: seconds('rotationGraceSeconds', options.rotationGraceSeconds),
    embedOrigins: [...embedOrigins],
    admin: options.admin === true,
    dataFile: options.dataFile,
    now: options.now ?? Date.now,
    faults: parseFaultSettings(options.faults ?? {}),
    maxBodyBytes,
    dashboardRefreshMs: Math.round(dashboardRefreshSeconds * 1000),
    rateLimitPerMinute,
    rateLimitBurst,
    embedSecrets: resolveEmbedSecrets(options.embedSecrets),
  };
}
