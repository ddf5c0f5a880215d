import { randomBytes } from 'node:crypto';
import type { GroupEntry, LockHandle, TokenStore, WindowCount } from '../types.js';
import { decodeEntry, encodeEntry } from '../entry-codec.js';
import { RedisStoreError } from './errors.js';
import { redisKeys } from './keys.js';
import { connectRedis } from './redis-connection.js';
import { positiveMs, resolveRedisStoreOptions, type RedisStoreOptions, type RedisStoreStatus } from './redis-options.js';
import { BUDGET_SCRIPT, EXTEND_LOCK_SCRIPT, HIT_SCRIPT, RELEASE_LOCK_SCRIPT, SET_IF_ABSENT_OR_SUPERSEDED_SCRIPT } from './scripts.js';
import { MAX_DEBT_MS, type BudgetDecision, type BudgetRequest } from '../../vendor-budget/reservation.js';

/*
 * The Redis store's commands: each a key from `keys.ts`, a command or Lua script from
 * `scripts.ts`, run through the connection (`redis-connection.ts`).
 */

export type RedisStore = TokenStore & {
  readonly status: RedisStoreStatus;
  reserveBudget(key: string, request: BudgetRequest): Promise<BudgetDecision>;
  setIfAbsent(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean>;
  setIfAbsentOrSuperseded(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean>;
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
  const resolved = resolveRedisStoreOptions(options);
  const keys = redisKeys(resolved.keyPrefix);
  const connection = connectRedis(options, resolved);
  const { client, run } = connection;

  return {
    get status() {
      return connection.status;
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

    close: () => connection.close(),
  };
}
