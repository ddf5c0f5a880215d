import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { withSocketDeadline } from '../../util/deadline.js';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../types.js';
import { decodeEntry, encodeEntry } from '../entry-codec.js';
import { RedisStoreError } from './errors.js';
import { redisKeys } from './keys.js';
import { createClient, reconnectDelay } from './redis-client.js';
import { BUDGET_SCRIPT, EXTEND_LOCK_SCRIPT, HIT_SCRIPT, RELEASE_LOCK_SCRIPT, SET_IF_ABSENT_OR_SUPERSEDED_SCRIPT } from './scripts.js';
import { MAX_DEBT_MS, type BudgetDecision, type BudgetRequest } from '../../budget/reservation.js';

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

export type RedisStore = TokenStore & {
  readonly status: RedisStoreStatus;
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision>;
  setIfAbsent(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean>;
  setIfAbsentOrSuperseded(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean>;
};

const DEFAULT_PREFIX = 'embed:';
const MAX_PREFIX_LENGTH = 256;

const positiveMs = (name: string, value: unknown): number => {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive number of milliseconds`);
  }
  return Math.ceil(value);
};

const isWrongType = (error: unknown) => error instanceof Error && error.message.startsWith('WRONGTYPE');

/**
 * A {@link TokenStore} in Redis, shared by every BFF process that uses the same Redis and prefix:
 * entries, single-flight and rotation locks and rate-limit windows then hold across processes.
 *
 * Every method fails fast while Redis is unreachable (rejecting with {@link RedisStoreError})
 * so the BFF can go straight to the vendor; the client keeps reconnecting in the background
 * and the store works again as soon as Redis is back.
 *
 * @example
 * ```ts
 * import { createRedisStore } from '@embedded-dashboard/bff/redis';
 *
 * const store = createRedisStore({ url: 'redis://127.0.0.1:6379' });
 * const lock = await store.tryLock('rotate:acme', 5_000);
 * if (lock) {
 *   try { ... } finally { await lock.release(); }
 * }
 * await store.close();
 * ```
 */
export function createRedisStore(options: RedisStoreOptions): RedisStore {
  const keyPrefix = options.keyPrefix ?? DEFAULT_PREFIX;
  if (typeof keyPrefix !== 'string' || keyPrefix.length > MAX_PREFIX_LENGTH) {
    throw new TypeError(`keyPrefix must be a string of at most ${MAX_PREFIX_LENGTH} characters`);
  }
  const connectTimeoutMs = positiveMs('connectTimeoutMs', options.connectTimeoutMs ?? 2_000);
  const commandTimeoutMs = positiveMs('commandTimeoutMs', options.commandTimeoutMs ?? 1_000);
  const keys = redisKeys(keyPrefix);
  const ownsClient = options.client === undefined;
  const client = options.client ?? createClient(options, connectTimeoutMs, commandTimeoutMs);

  let status: RedisStoreStatus = client.status === 'ready' ? 'ready' : 'connecting';
  let closed = false;
  let settleFirstConnection: ((ready: boolean) => void) | undefined;
  // Commands issued while the first connection is still being made wait for it (bounded), so a
  // process that starts serving a moment before Redis answers does not bypass the store.
  const firstConnection =
    status === 'ready'
      ? Promise.resolve(true)
      : new Promise<boolean>((resolve) => {
          const timer = setTimeout(() => resolve(false), connectTimeoutMs);
          timer.unref();
          settleFirstConnection = (ready) => {
            clearTimeout(timer);
            resolve(ready);
          };
        });

  /** Times in a row the client was started again after it ended (see `onEnd`). */
  let restarts = 0;
  const onReady = () => {
    restarts = 0;
    status = 'ready';
    settleFirstConnection?.(true);
  };
  const onDown = () => {
    status = 'down';
    settleFirstConnection?.(false);
  };
  // ioredis ends a client for good when its connection attempt is cut short: a Sentinel client's
  // failover detector (+switch-master) calls the connector's disconnect() while the client is
  // reconnecting after its master died, the attempt under way then fails with "Connection is
  // closed", and the client goes to `end` instead of retrying. Seen in the chaos tests' Sentinel
  // failovers under load: one BFF process never reached Redis again and served its own copy
  // while the other wrote the store. A client this store owns is started again.
  const onEnd = () => {
    onDown();
    if (closed || !ownsClient) return;
    const timer = setTimeout(() => {
      if (!closed && client.status === 'end') client.connect().catch(onError);
    }, reconnectDelay(++restarts));
    timer.unref();
  };
  // Without a listener ioredis prints every failed reconnect; failures reach callers as rejections.
  const onError = () => undefined;
  client.on('ready', onReady);
  client.on('close', onDown);
  client.on('end', onEnd);
  client.on('error', onError);
  if (client.status === 'wait') client.connect().catch(onError);

  const isReady = () => client.status === 'ready';
  const ensureConnected = async (operation: string): Promise<void> => {
    if (closed) throw new RedisStoreError('closed', `Redis store ${operation}: the store is closed`);
    if (isReady()) return;
    if (status === 'connecting' && (await firstConnection) && isReady()) return;
    throw new RedisStoreError('unavailable', `Redis store ${operation}: Redis is not connected`);
  };

  const run = async <T>(operation: string, command: () => Promise<T>): Promise<T> => {
    await ensureConnected(operation);
    // One deadline for the whole command: a cluster client may retry it on another node (MOVED,
    // ASK, a node that just died, CLUSTERDOWN).
    try {
      return await withSocketDeadline(command, commandTimeoutMs, () => new Error(`no answer within ${commandTimeoutMs} ms`));
    } catch (cause) {
      throw new RedisStoreError('unavailable', `Redis store ${operation} failed`, { cause });
    }
  };

  return {
    get status() {
      return status;
    },

    async get(groupKey: string): Promise<GroupEntry | undefined> {
      const key = keys.group(groupKey);
      return run('get', async () => {
        try {
          return decodeEntry(await client.get(key));
        } catch (error) {
          // Some other program's hash or list under our key: not an entry, so a miss.
          if (isWrongType(error)) return undefined;
          throw error;
        }
      });
    },

    async set(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<void> {
      const key = keys.group(groupKey);
      const px = positiveMs('ttlMs', ttlMs);
      const value = encodeEntry(entry);
      await run('set', () => client.set(key, value, 'PX', px));
    },

    async setIfAbsent(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean> {
      const key = keys.group(groupKey);
      const px = positiveMs('ttlMs', ttlMs);
      const value = encodeEntry(entry);
      return (await run('setIfAbsent', () => client.set(key, value, 'PX', px, 'NX'))) === 'OK';
    },

    async setIfAbsentOrSuperseded(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean> {
      const key = keys.group(groupKey);
      const px = positiveMs('ttlMs', ttlMs);
      const value = encodeEntry(entry);
      if (!Array.isArray(superseded) || !superseded.every((token) => typeof token === 'string')) throw new TypeError('superseded must be an array of tokens');
      return (await run('setIfAbsentOrSuperseded', () => client.eval(SET_IF_ABSENT_OR_SUPERSEDED_SCRIPT, 1, key, value, px, ...superseded))) === 1;
    },

    async delete(groupKey: string): Promise<void> {
      const key = keys.group(groupKey);
      await run('delete', () => client.del(key));
    },

    async tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined> {
      const key = keys.lock(name);
      const px = positiveMs('ttlMs', ttlMs);
      const owner = randomBytes(16).toString('base64url');
      const taken = await run('tryLock', () => client.set(key, owner, 'PX', px, 'NX'));
      if (taken !== 'OK') return undefined;
      let released = false;
      return {
        async release() {
          if (released) return;
          released = true;
          await run('release', () => client.eval(RELEASE_LOCK_SCRIPT, 1, key, owner));
        },
        async extend(extraMs: number) {
          const extended = positiveMs('ttlMs', extraMs);
          if (released) return false;
          return (await run('extendLock', () => client.eval(EXTEND_LOCK_SCRIPT, 1, key, owner, extended))) === 1;
        },
      };
    },

    async hit(key: string, windowMs: number): Promise<WindowCount> {
      const redisKey = keys.hit(key);
      const window = positiveMs('windowMs', windowMs);
      const reply = await run('hit', () => client.eval(HIT_SCRIPT, 1, redisKey, window));
      if (!Array.isArray(reply) || typeof reply[0] !== 'number' || typeof reply[1] !== 'number') {
        throw new RedisStoreError('unavailable', 'Redis store hit: unexpected reply');
      }
      return { count: reply[0], resetInMs: reply[1] };
    },

    async reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision> {
      const redisKey = keys.budget(key);
      const args = [
        request.intervalMs,
        request.burstMs,
        request.maxLatenessMs,
        request.pauseMs ?? -1,
        60_000,
        request.floorMs === undefined || !Number.isFinite(request.floorMs) ? '' : request.floorMs,
        request.debtCalls ?? 0,
        MAX_DEBT_MS,
      ];
      const reply = await run('reserveBudget', () => client.eval(BUDGET_SCRIPT, 1, redisKey, ...args));
      if (!Array.isArray(reply) || !reply.slice(0, 3).every((n) => typeof n === 'number')) {
        throw new RedisStoreError('unavailable', 'Redis store reserveBudget: unexpected reply');
      }
      const [admitted, ms, aheadMs] = reply as [number, number, number];
      return admitted === 1 ? { admitted: true, waitMs: ms, aheadMs } : { admitted: false, retryAfterMs: ms, aheadMs };
    },

    async ping(): Promise<void> {
      await run('ping', () => client.ping());
    },

    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      client.off('ready', onReady);
      client.off('close', onDown);
      client.off('end', onEnd);
      status = 'down';
      settleFirstConnection?.(false);
      if (!ownsClient) {
        client.off('error', onError);
        return;
      }
      if (client.status === 'ready') {
        // QUIT lets Redis finish what it has; the command timeout bounds it if Redis hangs.
        await client.quit().catch(() => undefined);
      }
      client.disconnect();
    },
  };
}
