import { ENVIRONMENTS, UPSTREAM_APIS, type DataSourceMapping, type Environment, type UpstreamApiName } from '@embedded-dashboard/protocol';
import type { LogLevel } from '../observability/logger.js';
import { DEFAULT_CLAIM_NAMES, isDataSourceMapping } from '../session/claims.js';
import type { SessionOptions } from '../session/session-verifier.js';

/** The CLI's configuration once validated. */
export interface CliConfig {
  upstreamUrl: string;
  /** Which vendor API the client speaks (`EMBED_UPSTREAM_API`). */
  upstreamApi: UpstreamApiName;
  apiToken: string;
  port: number;
  host: string;
  session: SessionOptions;
  tokenTtlSeconds: number;
  /** Seconds a synced group's token is served before the next request re-checks it with the vendor. */
  revalidateAfterSeconds: number;
  allowedOrigins: string[];
  expectEnvironment: Environment | undefined;
  redisUrl: string | undefined;
  /** With `redisUrl`: a Redis Cluster's seed nodes, or the sentinels and master name of a Sentinel group. */
  redisTopology: { clusterNodes?: string[]; sentinels?: string[]; sentinelMasterName?: string };
  logLevel: LogLevel;
  /** `/token` requests per minute per session; 0 disables the limits. */
  rateLimitPerMinute: number;
  /** Vendor calls per minute for the vendor account across the fleet; 0 turns the budget off. */
  upstreamRatePerMinute: number;
  /** Vendor calls the budget admits at once; unset = 10 seconds' worth. */
  upstreamBurst: number | undefined;
  /** Prefix of every store key; unset = environment and vendor account fingerprint. */
  keyPrefix: string | undefined;
  /** Where `/metrics` is served, on a listener of its own; unset = not served. */
  metrics: { port: number; host: string } | undefined;
}

/**
 * `EMBED_UPSTREAM_RATE`'s default: below the vendor's documented 180 requests a minute
 * (https://docs.explo.co/security/rate-limits), with room for the bursts the budget allows.
 */
export const DEFAULT_UPSTREAM_RATE = 150;

/** Every key the CLI reads, from the environment or the `--config` JSON file. */
export const CONFIG_KEYS = [
  'EMBED_UPSTREAM_URL',
  'EMBED_UPSTREAM_API',
  'EMBED_API_TOKEN',
  'EMBED_PORT',
  'EMBED_HOST',
  'EMBED_SESSION_SECRET',
  'EMBED_SESSION_JWKS_URL',
  'EMBED_SESSION_ISSUER',
  'EMBED_SESSION_AUDIENCE',
  'EMBED_SESSION_COOKIE',
  'EMBED_CLAIM_GROUP_ID',
  'EMBED_CLAIM_GROUP_NAME',
  'EMBED_CLAIM_PROPERTIES',
  'EMBED_CLAIM_MAPPING',
  'EMBED_MAPPING',
  'EMBED_TOKEN_TTL',
  'EMBED_REVALIDATE_AFTER',
  'EMBED_ALLOWED_ORIGINS',
  'EMBED_EXPECT_ENVIRONMENT',
  'EMBED_REDIS_URL',
  'EMBED_REDIS_CLUSTER_NODES',
  'EMBED_REDIS_SENTINELS',
  'EMBED_REDIS_SENTINEL_MASTER',
  'EMBED_LOG_LEVEL',
  'EMBED_RATE_LIMIT',
  'EMBED_UPSTREAM_RATE',
  'EMBED_UPSTREAM_BURST',
  'EMBED_KEY_PREFIX',
  'EMBED_METRICS_PORT',
  'EMBED_METRICS_HOST',
] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

const LOG_LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'silent'];
const COOKIE_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,128}$/;

/** Turns `--config` JSON into string values; non-string JSON is accepted where it is natural. */
function fileValues(file: unknown, problems: string[]): Partial<Record<ConfigKey, string>> {
  const values: Partial<Record<ConfigKey, string>> = {};
  if (file === undefined) return values;
  if (typeof file !== 'object' || file === null || Array.isArray(file)) {
    problems.push('config file: must be a JSON object of EMBED_* keys');
    return values;
  }
  for (const [key, value] of Object.entries(file)) {
    if (!(CONFIG_KEYS as readonly string[]).includes(key)) {
      problems.push(`config file: unknown key ${JSON.stringify(key.slice(0, 64))}`);
      continue;
    }
    if (typeof value === 'string') values[key as ConfigKey] = value;
    else if (typeof value === 'number' || typeof value === 'boolean') values[key as ConfigKey] = String(value);
    else if (key === 'EMBED_ALLOWED_ORIGINS' && Array.isArray(value) && value.every((v) => typeof v === 'string')) values[key] = value.join(',');
    else if (key === 'EMBED_MAPPING' && typeof value === 'object' && value !== null) values[key] = JSON.stringify(value);
    else problems.push(`config file: ${key} has an unsupported type`);
  }
  return values;
}

const httpUrl = (value: string): URL | undefined => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

const REDIS_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/** `EMBED_REDIS_CLUSTER_NODES` or `EMBED_REDIS_SENTINELS` (+ `EMBED_REDIS_SENTINEL_MASTER`), next to `EMBED_REDIS_URL`. */
function parseRedisTopology(get: (key: ConfigKey) => string | undefined, redisUrl: string | undefined, problems: string[]): CliConfig['redisTopology'] {
  const addresses = (key: ConfigKey): string[] | undefined => {
    const text = get(key);
    if (text === undefined) return undefined;
    const list = text.split(',').map((v) => v.trim()).filter(Boolean);
    const bad = list.filter((address) => {
      const match = REDIS_ADDRESS.exec(address);
      return !match || Number(match[2]) < 1 || Number(match[2]) > 65_535;
    });
    if (list.length === 0 || bad.length > 0) problems.push(`${key} must be a comma list of host:port (got ${JSON.stringify(text.slice(0, 200))})`);
    if (redisUrl === undefined) problems.push(`${key} needs EMBED_REDIS_URL (it carries the password and TLS; redis://host:port of one node is enough)`);
    return list;
  };
  const clusterNodes = addresses('EMBED_REDIS_CLUSTER_NODES');
  const sentinels = addresses('EMBED_REDIS_SENTINELS');
  const sentinelMasterName = get('EMBED_REDIS_SENTINEL_MASTER');
  if (clusterNodes && sentinels) problems.push('EMBED_REDIS_CLUSTER_NODES and EMBED_REDIS_SENTINELS exclude each other: a store is a cluster or a sentinel group');
  if (sentinelMasterName !== undefined && !sentinels) problems.push('EMBED_REDIS_SENTINEL_MASTER needs EMBED_REDIS_SENTINELS');
  if (sentinelMasterName !== undefined && !/^[\x21-\x7e]{1,128}$/.test(sentinelMasterName)) problems.push('EMBED_REDIS_SENTINEL_MASTER must be a master name without spaces');
  if (clusterNodes && redisUrl !== undefined && /^rediss?:\/\/[^/]*\/[1-9]/.test(redisUrl)) problems.push('EMBED_REDIS_URL must not name a database with EMBED_REDIS_CLUSTER_NODES: a Redis Cluster has only database 0');
  return {
    ...(clusterNodes ? { clusterNodes } : {}),
    ...(sentinels ? { sentinels, sentinelMasterName: sentinelMasterName ?? 'mymaster' } : {}),
  };
}

/**
 * Validates the configuration (environment over `--config` file) and lists every problem, one
 * line each, naming the key. Secret values (API token, session secret, Redis URL) are never
 * quoted back.
 */
export function parseConfig(env: Record<string, string | undefined>, file?: unknown): { config?: CliConfig; problems: string[] } {
  const problems: string[] = [];
  const fromFile = fileValues(file, problems);
  const get = (key: ConfigKey): string | undefined => {
    const value = env[key] !== undefined && env[key] !== '' ? env[key] : fromFile[key];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  // Secrets are used exactly as given: trimming one silently would make a key that works here
  // differ from the one the vendor or the session issuer holds, so surrounding spaces are refused.
  const SECRET_KEYS: readonly ConfigKey[] = ['EMBED_API_TOKEN', 'EMBED_SESSION_SECRET', 'EMBED_REDIS_URL'];
  for (const key of SECRET_KEYS) {
    const value = env[key] !== undefined && env[key] !== '' ? env[key] : fromFile[key];
    if (value !== undefined && value.trim() !== '' && value !== value.trim()) {
      problems.push(`${key} has leading or trailing whitespace (value not shown): remove it, secrets are used exactly as given`);
    }
  }
  const show = (value: string) => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

  const upstreamUrl = get('EMBED_UPSTREAM_URL');
  if (upstreamUrl === undefined) problems.push('EMBED_UPSTREAM_URL is required (the vendor base URL, e.g. http://127.0.0.1:8790)');
  else if (httpUrl(upstreamUrl) === undefined) problems.push(`EMBED_UPSTREAM_URL must be an http(s) URL (got ${show(upstreamUrl)})`);

  const apiToken = get('EMBED_API_TOKEN');
  if (apiToken === undefined) problems.push('EMBED_API_TOKEN is required (the vendor API token)');
  else if (apiToken.length < 8 || /\s/.test(apiToken)) problems.push('EMBED_API_TOKEN must be at least 8 characters without spaces (value not shown)');

  const portText = get('EMBED_PORT') ?? '8787';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`EMBED_PORT must be an integer from 0 to 65535 (got ${show(portText)})`);
  const host = get('EMBED_HOST') ?? '127.0.0.1';

  const secret = get('EMBED_SESSION_SECRET');
  const jwksUrl = get('EMBED_SESSION_JWKS_URL');
  if (secret === undefined && jwksUrl === undefined) problems.push('EMBED_SESSION_SECRET or EMBED_SESSION_JWKS_URL is required (how sessions are verified)');
  if (secret !== undefined && jwksUrl !== undefined) problems.push('set only one of EMBED_SESSION_SECRET and EMBED_SESSION_JWKS_URL');
  if (secret !== undefined && Buffer.byteLength(secret) < 32) problems.push('EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)');
  if (jwksUrl !== undefined && httpUrl(jwksUrl) === undefined) problems.push(`EMBED_SESSION_JWKS_URL must be an http(s) URL (got ${show(jwksUrl)})`);

  const cookie = get('EMBED_SESSION_COOKIE');
  if (cookie !== undefined && !COOKIE_NAME.test(cookie)) problems.push(`EMBED_SESSION_COOKIE must be a cookie name (got ${show(cookie)})`);

  let staticMapping: DataSourceMapping = {};
  const mappingText = get('EMBED_MAPPING');
  if (mappingText !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(mappingText);
    } catch {
      parsed = undefined;
    }
    if (isDataSourceMapping(parsed)) staticMapping = parsed;
    else problems.push('EMBED_MAPPING must be a JSON object whose values are strings, e.g. {"schema":"datasource"}');
  }

  const ttlText = get('EMBED_TOKEN_TTL') ?? '3600';
  if (!/^\d+$/.test(ttlText)) problems.push(`EMBED_TOKEN_TTL must be a whole number of seconds, 0 to disable (got ${show(ttlText)})`);

  const revalidateText = get('EMBED_REVALIDATE_AFTER') ?? '300';
  if (!/^\d+$/.test(revalidateText) || Number(revalidateText) > 31_536_000) {
    problems.push(`EMBED_REVALIDATE_AFTER must be a whole number of seconds, at most a year (got ${show(revalidateText)})`);
  }

  const allowedOrigins = (get('EMBED_ALLOWED_ORIGINS') ?? '').split(',').map((o) => o.trim()).filter((o) => o !== '');
  for (const origin of allowedOrigins) {
    if (httpUrl(origin)?.origin !== origin) problems.push(`EMBED_ALLOWED_ORIGINS: ${show(origin)} is not an origin like https://app.example.com`);
  }

  const environment = get('EMBED_EXPECT_ENVIRONMENT');
  if (environment !== undefined && !(ENVIRONMENTS as readonly string[]).includes(environment)) {
    problems.push(`EMBED_EXPECT_ENVIRONMENT must be ${ENVIRONMENTS.join(' or ')} (got ${show(environment)})`);
  }

  const upstreamApi = get('EMBED_UPSTREAM_API') ?? 'user-group-service';
  if (!(UPSTREAM_APIS as readonly string[]).includes(upstreamApi)) {
    problems.push(`EMBED_UPSTREAM_API must be ${UPSTREAM_APIS.join(' or ')} (got ${show(upstreamApi)})`);
  } else if (upstreamApi === 'explo-customer' && environment !== undefined) {
    // The Customer API never states Customer/Testing, so the check could only fail every request.
    problems.push('EMBED_EXPECT_ENVIRONMENT cannot be checked with EMBED_UPSTREAM_API=explo-customer (the Customer API does not state an environment); unset it');
  }

  const redisUrl = get('EMBED_REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) problems.push('EMBED_REDIS_URL must be a redis:// or rediss:// URL (value not shown)');
  const redisTopology = parseRedisTopology(get, redisUrl, problems);

  const logLevel = (get('EMBED_LOG_LEVEL') ?? 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`EMBED_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')} (got ${show(logLevel)})`);

  const rateText = get('EMBED_RATE_LIMIT') ?? '60';
  if (!/^\d+$/.test(rateText)) problems.push(`EMBED_RATE_LIMIT must be a whole number of requests per minute, 0 to disable (got ${show(rateText)})`);

  const upstreamRateText = get('EMBED_UPSTREAM_RATE') ?? String(DEFAULT_UPSTREAM_RATE);
  if (!/^\d+$/.test(upstreamRateText) || Number(upstreamRateText) > 1_000_000) {
    problems.push(`EMBED_UPSTREAM_RATE must be a whole number of vendor calls per minute, 0 to turn the budget off (got ${show(upstreamRateText)})`);
  }
  const upstreamBurstText = get('EMBED_UPSTREAM_BURST');
  if (upstreamBurstText !== undefined && (!/^\d+$/.test(upstreamBurstText) || Number(upstreamBurstText) < 1 || Number(upstreamBurstText) > 1_000_000)) {
    problems.push(`EMBED_UPSTREAM_BURST must be a whole number of vendor calls, at least 1 (got ${show(upstreamBurstText)})`);
  }

  const keyPrefix = get('EMBED_KEY_PREFIX');
  if (keyPrefix !== undefined && !/^[A-Za-z0-9._:-]{1,64}$/.test(keyPrefix)) {
    problems.push(`EMBED_KEY_PREFIX must be 1 to 64 of A-Z a-z 0-9 . _ : - (got ${show(keyPrefix)})`);
  }

  const metricsPortText = get('EMBED_METRICS_PORT');
  const metricsHost = get('EMBED_METRICS_HOST') ?? '127.0.0.1';
  if (metricsPortText !== undefined && (!/^\d+$/.test(metricsPortText) || Number(metricsPortText) > 65_535)) {
    problems.push(`EMBED_METRICS_PORT must be an integer from 0 to 65535 (got ${show(metricsPortText)})`);
  }
  if (metricsPortText === undefined && get('EMBED_METRICS_HOST') !== undefined) problems.push('EMBED_METRICS_HOST needs EMBED_METRICS_PORT (metrics are off without it)');
  if (metricsPortText !== undefined && metricsPortText !== '0' && Number(metricsPortText) === port && metricsHost === host) {
    problems.push('EMBED_METRICS_PORT must differ from EMBED_PORT: metrics get a listener of their own');
  }

  if (problems.length > 0) return { problems };
  const list = (value: string | undefined) => (value === undefined ? undefined : value.split(',').map((v) => v.trim()).filter(Boolean));
  return {
    problems,
    config: {
      upstreamUrl: upstreamUrl!,
      upstreamApi: upstreamApi as UpstreamApiName,
      apiToken: apiToken!,
      port,
      host,
      session: {
        ...(secret !== undefined ? { secret } : { jwksUrl: jwksUrl! }),
        issuer: list(get('EMBED_SESSION_ISSUER')),
        audience: list(get('EMBED_SESSION_AUDIENCE')),
        cookie,
        claims: {
          groupId: get('EMBED_CLAIM_GROUP_ID') ?? DEFAULT_CLAIM_NAMES.groupId,
          groupName: get('EMBED_CLAIM_GROUP_NAME') ?? DEFAULT_CLAIM_NAMES.groupName,
          properties: get('EMBED_CLAIM_PROPERTIES') ?? DEFAULT_CLAIM_NAMES.properties,
          mapping: get('EMBED_CLAIM_MAPPING') ?? DEFAULT_CLAIM_NAMES.mapping,
        },
        staticMapping,
      },
      tokenTtlSeconds: Number(ttlText),
      revalidateAfterSeconds: Number(revalidateText),
      allowedOrigins,
      expectEnvironment: environment as Environment | undefined,
      redisUrl,
      redisTopology,
      logLevel,
      rateLimitPerMinute: Number(rateText),
      upstreamRatePerMinute: Number(upstreamRateText),
      upstreamBurst: upstreamBurstText === undefined ? undefined : Number(upstreamBurstText),
      keyPrefix,
      metrics: metricsPortText === undefined ? undefined : { port: Number(metricsPortText), host: metricsHost },
    },
  };
}
