import type { Cluster, Redis } from 'ioredis';

/*
 * What a Redis store is given and what it makes of it: the options (`createRedisStore`'s
 * argument, also what `redis-client.ts` builds a client from) checked once, with their defaults.
 */

/** `ready`: commands go through; `connecting`: first connection in progress; `down`: lost, reconnecting in the background (or closed). */
export type RedisStoreStatus = 'ready' | 'connecting' | 'down';

export interface RedisStoreOptions {
  /**
   * `redis://[user:password@]host:port[/db]` or `rediss://…` for TLS. Ignored when `client` is
   * given. With `clusterNodes` its host:port is one more seed node and its user, password and TLS
   * apply to every node; with `sentinels` its user, password, db and TLS apply to the master the
   * sentinels name (its host:port is not used).
   */
  url: string;
  /**
   * Redis Cluster: `host:port` of some of its nodes (the client discovers the rest). Every key
   * the store uses lives in one slot per command, so any cluster layout works.
   */
  clusterNodes?: readonly string[];
  /** Redis Sentinel: `host:port` of some of the sentinels; they name the current master. */
  sentinels?: readonly string[];
  /** The master's name the sentinels know (`sentinel monitor NAME …`). @default 'mymaster' */
  sentinelMasterName?: string;
  /** Prepended to every key. @default 'embed:' */
  keyPrefix?: string;
  /** How long one connection attempt may take, and how long the first commands wait for the first connection. @default 2000 */
  connectTimeoutMs?: number;
  /** How long a command may wait for its reply before it rejects. @default 1000 */
  commandTimeoutMs?: number;
  /**
   * A client you created and own (the store never closes it). Its failure settings are yours:
   * give it `enableOfflineQueue: false`, a `commandTimeout` and a small `maxRetriesPerRequest`,
   * or commands queue while Redis is down instead of failing fast.
   */
  client?: Redis | Cluster;
}

const DEFAULT_PREFIX = 'embed:';
const MAX_PREFIX_LENGTH = 256;

/** `value` as whole milliseconds, or a `TypeError` naming `name`. */
export const positiveMs = (name: string, value: unknown): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive number of milliseconds`);
  }
  return Math.ceil(value);
};

/** The store's options checked, with their defaults. */
export interface ResolvedRedisStoreOptions {
  keyPrefix: string;
  connectTimeoutMs: number;
  commandTimeoutMs: number;
}

/** Checks what `createRedisStore` was given; throws a `TypeError` naming the option. */
export function resolveRedisStoreOptions(options: RedisStoreOptions): ResolvedRedisStoreOptions {
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (typeof keyPrefix !== 'string' || keyPrefix.length > MAX_PREFIX_LENGTH) {
    throw new TypeError(`keyPrefix must be a string of at most ${MAX_PREFIX_LENGTH} characters`);
  }
  return {
    keyPrefix,
    connectTimeoutMs: positiveMs('connectTimeoutMs', options.connectTimeoutMs ?? 2_000),
    commandTimeoutMs: positiveMs('commandTimeoutMs', options.commandTimeoutMs ?? 1_000),
  };
}
