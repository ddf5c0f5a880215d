import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { RedisStoreOptions } from './redis-options.js';

/*
 * The ioredis client the Redis store creates for one node (a URL), a Redis Cluster (seed nodes)
 * or a Sentinel group, from `RedisStoreOptions`: addresses checked, credentials and TLS from the
 * URL, and every topology failing fast while Redis is away (the store's deadline judges a command).
 */

/** Exponential from 50 ms, capped at 1 s, with jitter so a fleet does not reconnect in lockstep; never gives up. */
export const reconnectDelay = (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), 1_000) + Math.floor(Math.random() * 100);

const checkUrl = (url: unknown): URL => {
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  // The URL itself stays out of the message: it may carry a password.
  if (parsed?.protocol !== 'redis:' && parsed?.protocol !== 'rediss:') throw new TypeError('url must be a redis:// or rediss:// URL');
  return parsed;
};

const ADDRESS = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/;

/** `host:port` (IPv6 in brackets) to what ioredis takes; throws a `TypeError` naming `what`. */
export function parseRedisAddress(what: string, address: unknown): { host: string; port: number } {
  const match = typeof address === 'string' ? ADDRESS.exec(address) : null;
  const port = Number(match?.[3]);
  if (!match || port < 1 || port > 65_535) throw new TypeError(`${what} must be host:port addresses`);
  return { host: (match[1] ?? match[2])!, port };
}

const addresses = (what: string, list: unknown): { host: string; port: number }[] => {
  if (!Array.isArray(list) || list.length === 0) throw new TypeError(`${what} must be a non-empty array of host:port addresses`);
  return list.map((address) => parseRedisAddress(what, address));
};

/** The client for a URL, a cluster or a sentinel group, every one failing fast while Redis is away. */
export function createClient(options: RedisStoreOptions, connectTimeoutMs: number, commandTimeoutMs: number): Redis | Cluster {
  const url = checkUrl(options.url);
  if (options.clusterNodes !== undefined && options.sentinels !== undefined) throw new TypeError('give clusterNodes or sentinels, not both');
  const failFast = {
    connectTimeout: connectTimeoutMs,
    // A backstop only: the store's own deadline (`run`) judges a command, after reading what
    // Redis sent meanwhile; ioredis's timer would blame a busy event loop on Redis.
    commandTimeout: commandTimeoutMs * 5,
    // Fail fast: no resending after a dropped connection; nothing queues while disconnected.
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
  } satisfies RedisOptions;
  const auth = {
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === 'rediss:' ? { tls: {} } : {}),
  };
  if (options.clusterNodes !== undefined) {
    const seeds = addresses('clusterNodes', options.clusterNodes);
    if (url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0') throw new TypeError('a Redis Cluster has only database 0; drop the /db from url');
    return new Cluster([parseRedisAddress('url', url.host), ...seeds], {
      enableOfflineQueue: false,
      clusterRetryStrategy: reconnectDelay,
      // A command for the slots of a master that just died is retried (100 ms apart, the slots
      // re-read) for about 0.6 s, then fails: within the store's 1 s deadline, so the BFF answers
      // that customer from its local copy instead of treating the whole store as hung.
      maxRedirections: 6,
      // A slots refresh may take as long as a connection: ioredis's own 1 s closed the client
      // when the first one answered late (a loaded machine, a cold start), and the store failed
      // the commands waiting for its first connection inside their connectTimeoutMs.
      slotsRefreshTimeout: connectTimeoutMs,
      redisOptions: { ...failFast, ...auth },
    });
  }
  if (options.sentinels !== undefined) {
    const name = options.sentinelMasterName ?? 'mymaster';
    if (typeof name !== 'string' || name === '') throw new TypeError('sentinelMasterName must be a non-empty string');
    const db = Number(url.pathname.slice(1) || '0');
    if (!Number.isSafeInteger(db) || db < 0) throw new TypeError('url must end in /DB with DB a database number');
    return new Redis({
      ...failFast,
      ...auth,
      sentinels: addresses('sentinels', options.sentinels),
      name,
      db,
      enableOfflineQueue: false,
      retryStrategy: reconnectDelay,
      sentinelRetryStrategy: reconnectDelay,
      // A sentinel that accepts the connection but never answers (stopped, starved) would hold
      // the client's reconnection forever: ioredis sets no timeout on the sentinel's command.
      sentinelCommandTimeout: connectTimeoutMs,
      // Subscribe to the sentinels' +switch-master, so a failover is followed at once (ioredis
      // may then end a client that was reconnecting: the store starts it again, see redis-connection.ts).
      failoverDetector: true,
    });
  }
  return new Redis(options.url, { ...failFast, enableOfflineQueue: false, retryStrategy: reconnectDelay });
}
