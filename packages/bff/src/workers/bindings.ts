import { BFF_CONFIG_KEYS, BFF_SECRET_KEYS, parseBffConfig, type BffConfig } from '../env/bff-config.js';
import { configReader } from '../env/values.js';
import type { EmbedStoreNamespace } from './durable-object-store.js';

/** The binding of the {@link EmbedStore} Durable Object class the Worker's store lives in. */
export const STORE_BINDING = 'EMBED_STORE';

/** Keys of the CLI that mean nothing in a Worker, and why: set, they are a problem rather than silently ignored. */
const NOT_ON_WORKERS: Readonly<Record<string, string>> = {
  EMBED_PORT: 'a Worker has no listener of its own',
  EMBED_HOST: 'a Worker has no listener of its own',
  EMBED_REDIS_URL: `the Worker's store is the Durable Object binding ${STORE_BINDING}`,
  EMBED_REDIS_CLUSTER_NODES: `the Worker's store is the Durable Object binding ${STORE_BINDING}`,
  EMBED_REDIS_SENTINELS: `the Worker's store is the Durable Object binding ${STORE_BINDING}`,
  EMBED_REDIS_SENTINEL_MASTER: `the Worker's store is the Durable Object binding ${STORE_BINDING}`,
  EMBED_METRICS_PORT: 'a Worker keeps no metrics (its logs are the record)',
  EMBED_METRICS_HOST: 'a Worker keeps no metrics (its logs are the record)',
};

export interface WorkerConfig extends BffConfig {
  store: EmbedStoreNamespace;
}

const isNamespace = (value: unknown): value is EmbedStoreNamespace =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as EmbedStoreNamespace).idFromName === 'function' &&
  typeof (value as EmbedStoreNamespace).get === 'function';

/**
 * Validates a Worker's bindings: the CLI's keys with the CLI's rules (variables and secrets of the
 * same names), one line per problem, secrets never quoted back; plus what only a Worker needs:
 * the Customer API (the user group service's get-or-create is a GET with a JSON body, which
 * `fetch` refuses to send) and the {@link STORE_BINDING} Durable Object binding.
 */
export function parseWorkerBindings(env: Readonly<Record<string, unknown>>): { config?: WorkerConfig; problems: string[] } {
  const problems: string[] = [];
  const shared = parseBffConfig(configReader(env, BFF_CONFIG_KEYS, BFF_SECRET_KEYS, problems), problems);
  const api = env.EMBED_UPSTREAM_API;
  if (api === undefined || api === '' || (typeof api === 'string' && api.trim() === 'user-group-service')) {
    problems.push(
      'EMBED_UPSTREAM_API must be explo-customer on Workers' +
        `${api === undefined || api === '' ? ' (unset means user-group-service)' : ''}: the user group service's get-or-create is a GET with a JSON body, which fetch refuses to send, and a Worker has no other HTTP client`,
    );
  }
  for (const [key, why] of Object.entries(NOT_ON_WORKERS)) {
    if (env[key] !== undefined) problems.push(`${key} is not used on Workers: ${why}; remove it`);
  }
  const store = env[STORE_BINDING];
  if (!isNamespace(store)) {
    problems.push(
      `${STORE_BINDING} must be the Durable Object binding of the EmbedStore class (wrangler: durable_objects.bindings, name ${STORE_BINDING}, class_name EmbedStore): Worker isolates share nothing else`,
    );
  }
  if (problems.length > 0 || shared === undefined || !isNamespace(store)) return { problems };
  return { problems, config: { ...shared, store } };
}
