import type { Cluster, Redis } from 'ioredis';
import { withSocketDeadline } from '../../util/deadline.js';
import { RedisStoreError } from './errors.js';
import { createClient, reconnectDelay } from './redis-client.js';
import type { RedisStoreOptions, RedisStoreStatus, ResolvedRedisStoreOptions } from './redis-options.js';

/*
 * The Redis store's connection: the client it was given or made, its status as the store reports
 * it, the first connection waited for (bounded), a client ioredis ended started again, and `run`,
 * the one way a command reaches Redis (connected, within the command deadline, or a
 * `RedisStoreError`). The commands themselves are in `redis-store.ts`.
 */

/** A store's hold on its client. */
export interface RedisConnection {
  readonly client: Redis | Cluster;
  readonly status: RedisStoreStatus;
  /** Runs `command` once connected, within the command deadline; any failure is a `RedisStoreError`. */
  run<T>(operation: string, command: () => Promise<T>): Promise<T>;
  /** Stops following the client; closes it when the store made it. */
  close(): Promise<void>;
}

export function connectRedis(options: RedisStoreOptions, { connectTimeoutMs, commandTimeoutMs }: ResolvedRedisStoreOptions): RedisConnection {
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
    client,
    get status() {
      return status;
    },
    run,
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
