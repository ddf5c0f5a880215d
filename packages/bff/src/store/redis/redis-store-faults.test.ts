import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../../test/support/tools.js';
import { groupEntry } from '../../../test/support/group-entry.js';
import { createRedisStore, RedisStoreError, type RedisStore } from './index.js';

const tool = redisServerTool();

const entry = groupEntry('tok_1');

const everyMethod = (store: RedisStore) => ({
  get: () => store.get('acme'),
  set: () => store.set('acme', entry, 60_000),
  delete: () => store.delete('acme'),
  tryLock: () => store.tryLock('rotate:acme', 60_000),
  hit: () => store.hit('rl:acme', 60_000),
  ping: () => store.ping(),
});

// The tests run in order: Redis crashes, then comes back.
describe.skipIf(!tool.available)('Redis store when Redis crashes and returns', () => {
  let server: RedisServer;
  let store: RedisStore;

  beforeAll(async () => {
    server = await startRedisServer(tool.path);
    store = createRedisStore({ url: server.url, connectTimeoutMs: 500, commandTimeoutMs: 500 });
    await store.ping();
  });
  afterAll(async () => {
    await store?.close();
    await server?.dispose();
  });

  it('works while Redis is up', async () => {
    await store.set('acme', entry, 60_000);
    expect(await store.get('acme')).toEqual(entry);
    expect(store.status).toBe('ready');
  });

  // The vitest timeout is the bound: without fail-fast settings these would queue until Redis returns.
  it('rejects every method promptly once Redis is gone', { timeout: 15_000 }, async () => {
    await server.stop();
    await vi.waitFor(() => expect(store.status).toBe('down'), { timeout: 3_000, interval: 10 });
    for (const [name, call] of Object.entries(everyMethod(store))) {
      const error = await call().then(
        () => new Error(`${name} resolved while Redis was down`),
        (e: unknown) => e,
      );
      expect(error, name).toBeInstanceOf(RedisStoreError);
      expect((error as RedisStoreError).code, name).toBe('unavailable');
    }
  });

  it('rejects a burst of commands without queueing them', { timeout: 15_000 }, async () => {
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => store.get(`g${i}`)));
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
  });

  it('rejects lock release while down (the lock still expires on its own)', { timeout: 30_000 }, async () => {
    await server.start();
    await vi.waitFor(() => expect(store.status).toBe('ready'), { timeout: 8_000, interval: 20 });
    const lock = await store.tryLock('rotate:globex', 60_000);
    expect(lock).toBeDefined();
    await server.stop();
    await vi.waitFor(() => expect(store.status).toBe('down'), { timeout: 3_000, interval: 10 });
    await expect(lock!.release()).rejects.toThrow(RedisStoreError);
  });

  it('recovers on its own when Redis returns', { timeout: 30_000 }, async () => {
    await server.start();
    await vi.waitFor(() => store.ping(), { timeout: 8_000, interval: 50 });
    expect(store.status).toBe('ready');
    // The restarted server is empty: a miss, then the store works as before.
    expect(await store.get('acme')).toBeUndefined();
    await store.set('acme', entry, 60_000);
    expect(await store.get('acme')).toEqual(entry);
    const lock = await store.tryLock('rotate:acme', 60_000);
    expect(lock).toBeDefined();
    await lock!.release();
    expect((await store.hit('rl:acme', 60_000)).count).toBe(1);
  });

  it('times a command out when Redis hangs instead of waiting forever', { timeout: 15_000 }, async () => {
    const pid = await findServerPid(server.port);
    process.kill(pid, 'SIGSTOP');
    try {
      const error = await store.get('acme').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisStoreError);
      expect((error as RedisStoreError).code).toBe('unavailable');
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    await vi.waitFor(() => store.ping(), { timeout: 3_000, interval: 50 });
  });
});

/** The redis-server's pid, asked of the server itself (the test support hides its child process). */
async function findServerPid(port: number): Promise<number> {
  const client = new Redis(port, '127.0.0.1');
  try {
    const info = await client.info('server');
    const match = /process_id:(\d+)/.exec(info);
    if (!match) throw new Error('redis-server did not report its process_id');
    return Number(match[1]);
  } finally {
    client.disconnect();
  }
}
