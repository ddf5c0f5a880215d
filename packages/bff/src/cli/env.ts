import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig, type BffConfig } from '../env/bff-config.js';
import { parseRedisConfig, REDIS_CONFIG_KEYS, type RedisConfig } from '../env/redis-config.js';
import { configReader, show } from '../env/values.js';

/*
 * Configuration step 1 of 5 for the CLI (environment text -> options; ARCHITECTURE §2.1): its own keys
 * (where it listens, its store) over the shared ones of `env/`.
 */

/** The CLI's configuration once validated: the keys every runtime shares, and where it listens and stores. */
export interface CliConfig extends BffConfig, RedisConfig {
  port: number;
  host: string;
  /** Where `/metrics` is served, on a listener of its own; unset = not served. */
  metrics: { port: number; host: string } | undefined;
}

/** Every key the CLI reads, from the environment or the `--config` JSON file. */
export const CONFIG_KEYS = [...BFF_CONFIG_KEYS, 'EMBED_PORT', 'EMBED_HOST', ...REDIS_CONFIG_KEYS, 'EMBED_METRICS_PORT', 'EMBED_METRICS_HOST'] as const;
type ConfigKey = (typeof CONFIG_KEYS)[number];

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

/**
 * Validates the configuration (environment over `--config` file) and lists every problem, one
 * line each, naming the key. Secret values (API token, session secret, Redis URL) are never
 * quoted back.
 */
export function parseConfig(env: Record<string, string | undefined>, file?: unknown): { config?: CliConfig; problems: string[] } {
  const problems: string[] = [];
  const get = configReader(env, CONFIG_KEYS, [...BFF_SECRET_KEYS, 'EMBED_REDIS_URL'], problems, fileValues(file, problems));
  const shared = parseBffConfig(get, problems);

  const portText = get('EMBED_PORT') ?? '8787';
  const port = Number(portText);
  if (!/^\d+$/.test(portText) || port > 65_535) problems.push(`EMBED_PORT must be an integer from 0 to 65535 (got ${show(portText)})`);
  const host = get('EMBED_HOST') ?? '127.0.0.1';

  const redis = parseRedisConfig(get, problems);

  const metricsPortText = get('EMBED_METRICS_PORT');
  const metricsHost = get('EMBED_METRICS_HOST') ?? '127.0.0.1';
  if (metricsPortText !== undefined && (!/^\d+$/.test(metricsPortText) || Number(metricsPortText) > 65_535)) {
    problems.push(`EMBED_METRICS_PORT must be an integer from 0 to 65535 (got ${show(metricsPortText)})`);
  }
  if (metricsPortText === undefined && get('EMBED_METRICS_HOST') !== undefined)
    problems.push('EMBED_METRICS_HOST needs EMBED_METRICS_PORT (metrics are off without it)');
  if (metricsPortText !== undefined && metricsPortText !== '0' && Number(metricsPortText) === port && metricsHost === host) {
    problems.push('EMBED_METRICS_PORT must differ from EMBED_PORT: metrics get a listener of their own');
  }

  if (problems.length > 0 || shared === undefined) return { problems };
  return {
    problems,
    config: {
      ...shared,
      port,
      host,
      ...redis,
      metrics: metricsPortText === undefined ? undefined : { port: Number(metricsPortText), host: metricsHost },
    },
  };
}
