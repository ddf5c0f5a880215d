import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig, type BffConfig } from '../env/bff-config.js';
import { parseRedisConfig, REDIS_CONFIG_KEYS, type RedisConfig } from '../env/redis-config.js';
import { configReader } from '../env/values.js';

/*
 * Configuration step 1 of 5 for AWS Lambda (environment text -> options; ARCHITECTURE §2.1): the
 * shared keys of `env/`, the Redis store required, the CLI's own keys refused.
 */

/** A Lambda's configuration once validated: the keys every runtime shares, and the Redis store. */
export interface LambdaConfig extends BffConfig, RedisConfig {
  redisUrl: string;
}

/** The CLI's keys that mean nothing on Lambda, and why: set, they are a problem rather than silently ignored. */
const NOT_ON_LAMBDA: Readonly<Record<string, string>> = {
  EMBED_PORT: 'a Lambda function has no listener of its own (API Gateway or the function URL is)',
  EMBED_HOST: 'a Lambda function has no listener of its own (API Gateway or the function URL is)',
  EMBED_METRICS_PORT: 'a Lambda function keeps no metrics listener (its logs are the record)',
  EMBED_METRICS_HOST: 'a Lambda function keeps no metrics listener (its logs are the record)',
};

/**
 * Validates a Lambda function's environment: the CLI's keys with the CLI's rules and one-line
 * problems (secrets never quoted back), and `EMBED_REDIS_URL`, required: each execution
 * environment serves one request at a time and shares no memory with the others, so without a
 * shared store no lock, single flight, rate limit or vendor budget would hold.
 */
export function parseLambdaEnvironment(env: Readonly<Record<string, unknown>>): { config?: LambdaConfig; problems: string[] } {
  const problems: string[] = [];
  const keys = [...BFF_CONFIG_KEYS, ...REDIS_CONFIG_KEYS] as const;
  const get = configReader(env, keys, [...BFF_SECRET_KEYS, 'EMBED_REDIS_URL'], problems);
  const shared = parseBffConfig(get, problems);
  const redis = parseRedisConfig(get, problems);
  if (get('EMBED_REDIS_URL') === undefined) {
    problems.push('EMBED_REDIS_URL is required on Lambda: execution environments share no memory, so the locks, rate limits and vendor budget need Redis');
  }
  for (const [key, why] of Object.entries(NOT_ON_LAMBDA)) {
    if (env[key] !== undefined) problems.push(`${key} is not used on Lambda: ${why}; remove it`);
  }
  if (problems.length > 0 || shared === undefined || redis.redisUrl === undefined) return { problems };
  return { problems, config: { ...shared, ...redis, redisUrl: redis.redisUrl } };
}
