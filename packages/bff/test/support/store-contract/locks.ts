import { beforeEach, describe, expect, it } from 'vitest';
import { groupEntry as entry } from '../group-entry.js';
import type { LockHandle, TokenStore } from '../../../src/store/types.js';
import { eventually, type ContractStores } from './shared.js';

/** The contract's single-flight locks (exclusive, expiring, owned, extended) and fixed-window counters. */
export function describeLockAndCounterContract(current: () => ContractStores): void {
  let a: TokenStore;
  let b: TokenStore;
  beforeEach(() => {
    ({ a, b } = current());
  });

  describe('locks', () => {
    it('is exclusive until released, across clients, and names are independent', async () => {
      const lock = await a.tryLock('rotate:acme', 60_000);
      expect(lock).toBeDefined();
      expect(await a.tryLock('rotate:acme', 60_000)).toBeUndefined();
      expect(await b.tryLock('rotate:acme', 60_000)).toBeUndefined();
      expect(await b.tryLock('rotate:globex', 60_000)).toBeDefined();
      await lock!.release();
      expect(await b.tryLock('rotate:acme', 60_000)).toBeDefined();
    });

    it('gives a contended lock to exactly one of many concurrent callers', async () => {
      const attempts = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).tryLock('sync:acme', 60_000)));
      expect(attempts.filter(Boolean)).toHaveLength(1);
    });

    it('expires on its own, so a crashed holder cannot block forever', async () => {
      expect(await a.tryLock('rotate:acme', 1_000)).toBeDefined();
      expect(await b.tryLock('rotate:acme', 60_000)).toBeUndefined();
      await eventually(async () => expect(await b.tryLock('rotate:acme', 60_000)).toBeDefined());
    });

    it('does not free the next holder’s lock when released after its own expired, nor when released twice', async () => {
      const stale = await a.tryLock('rotate:acme', 40);
      expect(stale).toBeDefined();
      let current: LockHandle | undefined;
      await eventually(async () => {
        current = await b.tryLock('rotate:acme', 60_000);
        expect(current).toBeDefined();
      });
      await stale!.release();
      await stale!.release();
      expect(await a.tryLock('rotate:acme', 60_000)).toBeUndefined();
      await current!.release();
      expect(await a.tryLock('rotate:acme', 60_000)).toBeDefined();
    });

    it('extends a lock its holder still owns, and only that one', async () => {
      const lock = await a.tryLock('rotate:acme', 60);
      expect(lock?.extend).toBeDefined();
      expect(await lock!.extend!(60_000)).toBe(true);
      // Past the first lifetime: still held, thanks to the extension.
      await new Promise((resolve) => setTimeout(resolve, 120));
      expect(await b.tryLock('rotate:acme', 60_000)).toBeUndefined();
      await lock!.release();
      expect(await lock!.extend!(60_000)).toBe(false);
      const stale = await a.tryLock('sync:acme', 40);
      let current: LockHandle | undefined;
      await eventually(async () => {
        current = await b.tryLock('sync:acme', 60_000);
        expect(current).toBeDefined();
      });
      // The expired holder cannot take back (nor lengthen) the next holder's lock.
      expect(await stale!.extend!(60_000)).toBe(false);
      await current!.release();
      expect(await a.tryLock('sync:acme', 60_000)).toBeDefined();
      await expect(lock!.extend!(0)).rejects.toThrow(TypeError);
    });

    it('keeps lock names apart from group entries and counters of the same name', async () => {
      await a.set('acme', entry('tok_1'), 60_000);
      await a.hit('acme', 60_000);
      const lock = await a.tryLock('acme', 60_000);
      expect(lock).toBeDefined();
      await lock!.release();
      expect(await b.get('acme')).toEqual(entry('tok_1'));
      expect((await b.hit('acme', 60_000)).count).toBe(2);
    });
  });
  describe('fixed-window counters', () => {
    it('counts hits in one window shared by every client, whose reset never moves out', async () => {
      const counts = [];
      for (let i = 0; i < 5; i += 1) counts.push(await (i % 2 ? a : b).hit('rl:acme', 60_000));
      expect(counts.map((c) => c.count)).toEqual([1, 2, 3, 4, 5]);
      for (const c of counts) {
        expect(c.resetInMs).toBeGreaterThan(0);
        expect(c.resetInMs).toBeLessThanOrEqual(60_000);
      }
      expect(counts[4]!.resetInMs).toBeLessThanOrEqual(counts[0]!.resetInMs);
      expect((await a.hit('rl:globex', 60_000)).count).toBe(1);
    });

    it('counts every one of many concurrent hits exactly once', async () => {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (i % 2 ? a : b).hit('rl:burst', 60_000)));
      expect(results.map((r) => r.count).sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    });

    it('starts a new window after the old one ends', async () => {
      expect((await a.hit('rl:acme', 1_000)).count).toBe(1);
      expect((await b.hit('rl:acme', 1_000)).count).toBe(2);
      await eventually(async () => expect((await a.hit('rl:acme', 1_000)).count).toBe(1));
    });

    it('agrees with its synchronous forms, where the store has them', async () => {
      if (a.peek === undefined || a.hitNow === undefined) return;
      await a.set('acme', entry('tok_1'), 60_000);
      expect(a.peek('acme')).toEqual(await b.get('acme'));
      expect(a.peek('globex')).toBeUndefined();
      expect(a.hitNow('rl:acme', 60_000).count).toBe(1);
      expect((await b.hit('rl:acme', 60_000)).count).toBe(2);
    });
  });
}
