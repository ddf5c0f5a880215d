import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.js';
import { groupEntry as entry } from '../../test/support/group-entry.js';
import type { GroupEntry } from './types.js';
import { describeStoreContract } from '../../test/support/store-contract/index.js';

const clock = () => {
  let t = 1_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
};

describe('MemoryTokenStore', () => {
  it('returns what was set until its ttl runs out', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    await store.set('g', entry('a'), 100);
    expect((await store.get('g'))?.token).toBe('a');
    c.advance(99);
    expect((await store.get('g'))?.token).toBe('a');
    c.advance(1);
    expect(await store.get('g')).toBeUndefined();
  });

  it('hands out entries that callers cannot change', async () => {
    const store = createMemoryStore();
    const original = entry('a');
    await store.set('g', original, 1000);
    original.token = 'changed-after-set';
    const got = await store.get('g');
    expect(got?.token).toBe('a');
    expect(() => {
      (got as GroupEntry).token = 'x';
    }).toThrow(TypeError);
  });

  it('evicts the least recently used entry beyond maxEntries', async () => {
    const store = createMemoryStore({ maxEntries: 2 });
    await store.set('a', entry('a'), 1000);
    await store.set('b', entry('b'), 1000);
    await store.get('a');
    await store.set('c', entry('c'), 1000);
    expect(await store.get('b')).toBeUndefined();
    expect((await store.get('a'))?.token).toBe('a');
    expect((await store.get('c'))?.token).toBe('c');
  });

  it('lets an expired lock be taken, and the old holder cannot release the new one', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    const old = await store.tryLock('l', 100);
    c.advance(100);
    const fresh = await store.tryLock('l', 100);
    expect(fresh).toBeDefined();
    await old!.release();
    expect(await store.tryLock('l', 100)).toBeUndefined();
  });

  it('counts hits in fixed windows', async () => {
    const c = clock();
    const store = createMemoryStore({ now: c.now });
    expect(await store.hit('k', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    c.advance(400);
    expect(await store.hit('k', 1000)).toEqual({ count: 2, resetInMs: 600 });
    expect(await store.hit('other', 1000)).toEqual({ count: 1, resetInMs: 1000 });
    c.advance(600);
    expect(await store.hit('k', 1000)).toEqual({ count: 1, resetInMs: 1000 });
  });

  it('bounds the number of counters', async () => {
    const store = createMemoryStore({ maxCounters: 1 });
    await store.hit('a', 1000);
    await store.hit('a', 1000);
    await store.hit('b', 1000);
    expect((await store.hit('a', 1000)).count).toBe(1);
  });

  it('answers ping, and forgets everything on close', async () => {
    const store = createMemoryStore();
    await expect(store.ping()).resolves.toBeUndefined();
    await store.set('g', entry('a'), 1000);
    await store.close();
    expect(await store.get('g')).toBeUndefined();
  });

  it('refuses a nonsensical size', () => {
    expect(() => createMemoryStore({ maxEntries: 0 })).toThrow(TypeError);
  });
});

describeStoreContract('MemoryTokenStore', async () => {
  const store = createMemoryStore();
  return { a: store, b: store, close: () => store.close() };
});
