import type { ConfigGet } from './values.js';

/*
 * Configuration step 1 of 5 (environment text -> options; ARCHITECTURE §2.1): the Redis keys.
 */

/** The Redis keys of the runtimes whose store is Redis (the CLI, AWS Lambda). */
export const REDIS_CONFIG_KEYS = ['EMBED_REDIS_URL', 'EMBED_REDIS_CLUSTER_NODES', 'EMBED_REDIS_SENTINELS', 'EMBED_REDIS_SENTINEL_MASTER'] as const;
export type RedisConfigKey = (typeof REDIS_CONFIG_KEYS)[number];

export interface RedisConfig {
  redisUrl: string | undefined;
  /** With `redisUrl`: a Redis Cluster's seed nodes, or the sentinels and master name of a Sentinel group. */
  redisTopology: { clusterNodes?: string[]; sentinels?: string[]; sentinelMasterName?: string };
}

const REDIS_ADDRESS = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/**
 * `EMBED_REDIS_URL` (never quoted back: it may carry a password) and, next to it,
 * `EMBED_REDIS_CLUSTER_NODES` or `EMBED_REDIS_SENTINELS` (+ `EMBED_REDIS_SENTINEL_MASTER`).
 */
export function parseRedisConfig(get: ConfigGet<RedisConfigKey>, problems: string[]): RedisConfig {
  const redisUrl = get('EMBED_REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\/[^\s]+$/.test(redisUrl)) problems.push('EMBED_REDIS_URL must be a redis:// or rediss:// URL (value not shown)');
  const addresses = (key: RedisConfigKey): string[] | undefined => {
    const text = get(key);
    if (text === undefined) return undefined;
    const list = text
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
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
  if (clusterNodes && sentinels)
    problems.push('EMBED_REDIS_CLUSTER_NODES and EMBED_REDIS_SENTINELS exclude each other: a store is a cluster or a sentinel group');
  if (sentinelMasterName !== undefined && !sentinels) problems.push('EMBED_REDIS_SENTINEL_MASTER needs EMBED_REDIS_SENTINELS');
  if (sentinelMasterName !== undefined && !/^[\x21-\x7e]{1,128}$/.test(sentinelMasterName))
    problems.push('EMBED_REDIS_SENTINEL_MASTER must be a master name without spaces');
  if (clusterNodes && redisUrl !== undefined && /^rediss?:\/\/[^/]*\/[1-9]/.test(redisUrl))
    problems.push('EMBED_REDIS_URL must not name a database with EMBED_REDIS_CLUSTER_NODES: a Redis Cluster has only database 0');
  return {
    redisUrl,
    redisTopology: {
      ...(clusterNodes ? { clusterNodes } : {}),
      ...(sentinels ? { sentinels, sentinelMasterName: sentinelMasterName ?? 'mymaster' } : {}),
    },
  };
}

/** The Redis password in `redisUrl`, for the logger's redaction (`[]` when there is none). */
export const redisSecrets = (redisUrl: string | undefined): string[] => {
  if (redisUrl === undefined) return [];
  const password = decodeURIComponent(new URL(redisUrl).password);
  return password === '' ? [] : [password];
};
