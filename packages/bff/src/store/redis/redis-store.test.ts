import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startRedisServer, type RedisServer } from '../../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../../test/support/tools.js';
import { groupEntry as entry } from '../../../test/support/group-entry.js';
import { createRedisStore, RedisStoreError, type RedisStore } from './index.js';
import { encodeEntry } from '../entry-codec.js';
import { redisKeys } from './keys.js';
import { describeStoreContract } from '../../../test/support/store-contract/index.js';

const tool = redisServerTool();

describe.skipIf(!tool.available)('createRedisStore against a real redis-server', () => {
  let server: RedisServer;
  let raw: Redis;
  const stores: RedisStore[] = [];
  const open = (options: Partial<Parameters<typeof createRedisStore>[0]> = {}) => {
    const store = createRedisStore({ url: server.url, ...options });
    stores.push(store);
    return store;
  };
  const keys = redisKeys('embed:');

  beforeAll(async () => {
    server = await startRedisServer(tool.path);
    raw = new Redis(server.url);
  });
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((store) => store.close()));
    await raw.flushall();
  });
  afterAll(async () => {
    raw?.disconnect();
    await server?.dispose();
  });

  // Two stores (two BFF processes) on one Redis; each test its own key prefix.
  let tests = 0;
  describeStoreContract('RedisStore', async () => {
    const keyPrefix = `contract${++tests}:`;
    const [a, b] = [createRedisStore({ url: server.url, keyPrefix }), createRedisStore({ url: server.url, keyPrefix })];
    return { a, b, close: () => Promise.all([a.close(), b.close()]).then(() => undefined) };
  });

  describe('entries', () => {
    it('is separated by prefix', async () => {
      const a = open();
      const other = open({ keyPrefix: 'tenant2:' });
      await a.set('acme', entry('tok_1'), 60_000);
      expect(await other.get('acme')).toBeUndefined();
      expect(await raw.exists('embed:group:=acme', 'tenant2:group:=acme')).toBe(1);
    });

    it('gives the entry and setIfAbsent’s entry the ttl as a Redis expiry', async () => {
      const store = open();
      await store.set('acme', entry('tok_1'), 60_000);
      await store.setIfAbsent('globex', entry('tok_2'), 60_000);
      for (const key of [keys.group('acme'), keys.group('globex')]) {
        const pttl = await raw.pttl(key);
        expect(pttl).toBeGreaterThan(0);
        expect(pttl).toBeLessThanOrEqual(60_000);
      }
    });

    it('gives hostile group ids (colons, unicode, lone surrogates, very long) keys of their own, short and prefixed', async () => {
      const store = open();
      const ids = [
        'a',
        'a:b',
        'a:b:',
        ':a',
        'group:a',
        '=a',
        '%003a',
        'Zürich',
        'Zu\u0308rich',
        '🦄',
        '\uD800',
        '\uDBFF',
        'x'.repeat(100_000),
        `${'x'.repeat(100_000)}y`,
        '',
      ];
      await Promise.all(ids.map((id, index) => store.set(id, entry(`tok_${index}`), 60_000)));
      expect(await raw.dbsize()).toBe(ids.length);
      for (const key of await raw.keys('*')) {
        expect(key.startsWith('embed:group:')).toBe(true);
        expect(key.length).toBeLessThanOrEqual(200);
      }
    });

    it.each([
      ['plain text', 'tok_evil'],
      ['invalid JSON', '{"v":1,"e":{"token":'],
      ['a bare entry from another program', JSON.stringify(entry('tok_evil'))],
      ['a wrong field type', JSON.stringify({ v: 1, e: { ...entry('tok_evil'), firstSeenAt: 'soon' } })],
      ['a future format', JSON.stringify({ v: 2, e: entry('tok_evil') })],
    ])('treats %s under the key as a miss', async (_name, value) => {
      const store = open();
      await raw.set(keys.group('acme'), value);
      expect(await store.get('acme')).toBeUndefined();
      await store.set('acme', entry('tok_good'), 60_000);
      expect(await store.get('acme')).toEqual(entry('tok_good'));
    });

    it('treats a key of another type (a hash) as a miss and replaces it on set', async () => {
      const store = open();
      await raw.hset(keys.group('acme'), 'token', 'tok_evil');
      expect(await store.get('acme')).toBeUndefined();
      await store.set('acme', entry('tok_good'), 60_000);
      expect(await store.get('acme')).toEqual(entry('tok_good'));
    });

    it('reads what another process wrote in the same format', async () => {
      const store = open();
      await raw.set(keys.group('acme'), encodeEntry(entry('tok_1')), 'PX', 60_000);
      expect(await store.get('acme')).toEqual(entry('tok_1'));
    });
  });

  describe('hit windows', () => {
    it('lets Redis expire a window’s counter', async () => {
      const store = open();
      expect((await store.hit('rl:acme', 50)).count).toBe(1);
      await vi.waitFor(async () => expect(await raw.exists(keys.hit('rl:acme'))).toBe(0), { timeout: 5_000, interval: 20 });
    });

    it('gives a counter left without an expiry one, so it cannot count forever', async () => {
      const store = open();
      await raw.set(keys.hit('rl:acme'), '7');
      const result = await store.hit('rl:acme', 60_000);
      expect(result.count).toBe(8);
      expect(await raw.pttl(keys.hit('rl:acme'))).toBeGreaterThan(0);
    });

    it('starts afresh over a value that is not a counter', async () => {
      const store = open();
      await raw.set(keys.hit('rl:acme'), 'not a number');
      expect(await store.hit('rl:acme', 60_000)).toEqual({ count: 1, resetInMs: 60_000 });
      await raw.del(keys.hit('rl:acme'));
      await raw.rpush(keys.hit('rl:acme'), 'x');
      expect((await store.hit('rl:acme', 60_000)).count).toBe(1);
      expect((await store.hit('rl:acme', 60_000)).count).toBe(2);
    });
  });

  describe('connection', () => {
    it('pings and reports ready', async () => {
      const store = open();
      await expect(store.ping()).resolves.toBeUndefined();
      expect(store.status).toBe('ready');
    });

    it('lets the first commands wait for the first connection instead of failing', async () => {
      const store = open();
      expect(store.status).toBe('connecting');
      await expect(store.get('acme')).resolves.toBeUndefined();
    });

    it('rejects every method after close, and closes twice without harm', async () => {
      const store = createRedisStore({ url: server.url });
      await store.ping();
      await store.close();
      await store.close();
      expect(store.status).toBe('down');
      const error = await store.get('acme').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisStoreError);
      expect((error as RedisStoreError).code).toBe('closed');
      await expect(store.ping()).rejects.toThrow(RedisStoreError);
    });

    it('uses an injected client and leaves it open on close', async () => {
      const client = new Redis(server.url, { enableOfflineQueue: false, maxRetriesPerRequest: 0 });
      try {
        const store = createRedisStore({ url: 'redis://unused.invalid:1', client });
        await store.set('acme', entry('tok_1'), 60_000);
        expect(await raw.exists(keys.group('acme'))).toBe(1);
        await store.close();
        expect(await client.ping()).toBe('PONG');
      } finally {
        client.disconnect();
      }
    });

    it('connects a lazy injected client', async () => {
      const client = new Redis(server.url, { lazyConnect: true, enableOfflineQueue: false });
      try {
        const store = createRedisStore({ url: server.url, client });
        await expect(store.ping()).resolves.toBeUndefined();
        await store.close();
      } finally {
        client.disconnect();
      }
    });
  });
});

describe('createRedisStore options', () => {
  it.each([
    ['no URL', { url: undefined as unknown as string }],
    ['a URL of another scheme', { url: 'http://127.0.0.1:6379' }],
    ['a URL that is not one', { url: 'not a url' }],
    ['a zero connect timeout', { url: 'redis://127.0.0.1:1', connectTimeoutMs: 0 }],
    ['a negative command timeout', { url: 'redis://127.0.0.1:1', commandTimeoutMs: -5 }],
    ['a non-numeric command timeout', { url: 'redis://127.0.0.1:1', commandTimeoutMs: '100' as unknown as number }],
    ['a non-string prefix', { url: 'redis://127.0.0.1:1', keyPrefix: 5 as unknown as string }],
    ['a huge prefix', { url: 'redis://127.0.0.1:1', keyPrefix: 'p'.repeat(10_000) }],
  ])('refuses %s with a TypeError', (_name, options) => {
    expect(() => createRedisStore(options)).toThrow(TypeError);
  });

  it('never puts the URL (and its password) into the error', () => {
    const attempt = () => createRedisStore({ url: 'http://user:hunter2@127.0.0.1:6379' });
    expect(attempt).toThrow(TypeError);
    expect(attempt).not.toThrow(/hunter2/);
  });

  it('fails fast and says down when nothing listens', { timeout: 10_000 }, async () => {
    // Port 1 on loopback: refused at once.
    const store = createRedisStore({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 500, commandTimeoutMs: 200 });
    try {
      const error = await store.get('acme').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RedisStoreError);
      expect((error as RedisStoreError).code).toBe('unavailable');
      expect(store.status).toBe('down');
      await expect(store.ping()).rejects.toThrow(RedisStoreError);
      await expect(store.tryLock('l', 1_000)).rejects.toThrow(RedisStoreError);
      await expect(store.hit('h', 1_000)).rejects.toThrow(RedisStoreError);
      await expect(store.set('acme', entry('t'), 1_000)).rejects.toThrow(RedisStoreError);
      await expect(store.delete('acme')).rejects.toThrow(RedisStoreError);
    } finally {
      await store.close();
    }
  });
});
