import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { groupEntry as entry } from '../testing/group-entry.js';
import type { BudgetRequest } from '../budget/reservation.js';
import type { LockHandle, TokenStore } from './types.js';

/**
 * Two clients of one fresh, empty store: two processes (or Workers) sharing a Redis or the
 * Durable Objects, or the same object twice for a store in one process's memory. Every test
 * opens its own, so no test sees another's keys.
 */
export interface ContractStores {
  a: TokenStore;
  b: TokenStore;
  close(): Promise<void>;
}

/**
 * The store contract every `TokenStore` passes: the memory store, the Redis store (on a real
 * redis-server) and the Durable Object store (in workerd). Whatever the token service relies on
 * is here: entries with their expiry and `setIfAbsent`, the account-environment marker, the
 * single-flight lock with its expiry and owner, fixed-window counters, and the vendor budget.
 * A new store operation gets its cases here, and every implementation passes them.
 *
 * Times are real: what must expire does within a second, awaited with `vi.waitFor`; what must
 * not expire during a test lasts a minute (a busy machine takes tens of milliseconds a call).
 */
export function describeStoreContract(name: string, open: () => Promise<ContractStores>): void {
  describe(`${name}: the store contract`, () => {
    let stores: ContractStores;
    let a: TokenStore;
    let b: TokenStore;
    beforeEach(async () => {
      stores = await open();
      ({ a, b } = stores);
    });
    afterEach(() => stores.close());
    const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 5_000, interval: 20 });

    describe('entries', () => {
      it('misses an unknown group, then returns what was set, every field as given, to every client', async () => {
        expect(await a.get('acme')).toBeUndefined();
        const full = entry('tok_2', { previousToken: 'tok_1', lastRotatedAt: 5, claimsIssuedAt: 1_790_000_000_000, account: 'acct-1', environment: 'Testing' });
        await a.set('acme', entry('tok_1'), 60_000);
        expect(await b.get('acme')).toEqual(entry('tok_1'));
        await b.set('acme', full, 60_000);
        expect(await a.get('acme')).toEqual(full);
        await a.set('acme', entry('tok_3', { environment: null }), 60_000);
        const plain = await b.get('acme');
        expect(plain).toEqual(entry('tok_3', { environment: null }));
        expect(Object.keys(plain!).sort()).toEqual(Object.keys(entry('x')).sort());
      });

      it('keeps what was set from changes the caller makes afterwards', async () => {
        const original = entry('tok_1');
        await a.set('acme', original, 60_000);
        original.token = 'changed-after-set';
        expect((await b.get('acme'))?.token).toBe('tok_1');
      });

      it('forgets an entry once its ttl has passed, and only that one', async () => {
        await a.set('acme', entry('tok_1'), 60_000);
        await a.set('globex', entry('tok_2'), 40);
        await eventually(async () => expect(await b.get('globex')).toBeUndefined());
        expect(await b.get('acme')).toEqual(entry('tok_1'));
      });

      it('deletes an entry, and deleting a missing one is fine', async () => {
        await a.set('acme', entry('tok_1'), 60_000);
        await b.delete('acme');
        expect(await a.get('acme')).toBeUndefined();
        await expect(a.delete('never-was')).resolves.toBeUndefined();
      });

      it('setIfAbsent writes only where no live entry is, and says whether it wrote', async () => {
        expect(await a.setIfAbsent!('acme', entry('tok_outage'), 60_000)).toBe(true);
        expect(await b.get('acme')).toEqual(entry('tok_outage'));
        await b.set('globex', entry('tok_rotated'), 60_000);
        expect(await a.setIfAbsent!('globex', entry('tok_outage'), 60_000)).toBe(false);
        expect(await a.get('globex')).toEqual(entry('tok_rotated'));
        await a.set('initech', entry('tok_old'), 40);
        await eventually(async () => expect(await b.setIfAbsent!('initech', entry('tok_new'), 40)).toBe(true));
        await eventually(async () => expect(await a.get('initech')).toBeUndefined());
      });

      it('lets exactly one of many concurrent setIfAbsent calls write', async () => {
        const wrote = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).setIfAbsent!('acme', entry(`tok_${i}`), 60_000)));
        expect(wrote.filter(Boolean)).toHaveLength(1);
        expect((await a.get('acme'))?.token).toBe(`tok_${wrote.indexOf(true)}`);
      });

      it('setIfAbsentOrSuperseded writes where nothing is, or over an entry whose token is superseded, never over another', async () => {
        expect(await a.setIfAbsentOrSuperseded!('acme', entry('tok_rotated_in_outage', { previousToken: 'tok_before' }), 60_000, ['tok_before'])).toBe(true);
        expect((await b.get('acme'))?.token).toBe('tok_rotated_in_outage');
        // The store kept the pre-outage entry (resumed, or restarted from its append-only file).
        await b.set('globex', entry('tok_before'), 60_000);
        expect(await a.setIfAbsentOrSuperseded!('globex', entry('tok_after'), 60_000, ['tok_older', 'tok_before'])).toBe(true);
        expect(await b.get('globex')).toEqual(entry('tok_after'));
        // Another process wrote something newer meanwhile: left alone.
        await b.set('initech', entry('tok_of_another_process'), 60_000);
        expect(await a.setIfAbsentOrSuperseded!('initech', entry('tok_mine'), 60_000, ['tok_before'])).toBe(false);
        expect(await a.setIfAbsentOrSuperseded!('initech', entry('tok_mine'), 60_000, [])).toBe(false);
        expect((await b.get('initech'))?.token).toBe('tok_of_another_process');
        // The ttl applies as with set.
        await a.setIfAbsentOrSuperseded!('umbrella', entry('tok_short'), 40, []);
        await eventually(async () => expect(await b.get('umbrella')).toBeUndefined());
        await expect(a.setIfAbsentOrSuperseded!('acme', entry('x'), 0, [])).rejects.toThrow(TypeError);
      });

      it('lets exactly one of many concurrent setIfAbsentOrSuperseded calls replace the same superseded entry', async () => {
        await a.set('acme', entry('tok_before'), 60_000);
        const wrote = await Promise.all(
          Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).setIfAbsentOrSuperseded!('acme', entry(`tok_${i}`, { previousToken: 'tok_before' }), 60_000, ['tok_before'])),
        );
        expect(wrote.filter(Boolean)).toHaveLength(1);
        expect((await a.get('acme'))?.token).toBe(`tok_${wrote.indexOf(true)}`);
      });

      it('keeps hostile group keys apart (colons, unicode, lone surrogates, very long, empty)', async () => {
        const ids = ['a', 'a:b', 'a:b:', ':a', 'group:a', '=a', '%003a', '/a/../b', 'Zürich', 'Zu\u0308rich', '🦄', '\uD800', '\uDBFF', 'x'.repeat(100_000), `${'x'.repeat(100_000)}y`, ''];
        await Promise.all(ids.map((id, index) => a.set(id, entry(`tok_${index}`), 60_000)));
        const read = await Promise.all(ids.map((id) => b.get(id)));
        expect(read.map((e) => e?.token)).toEqual(ids.map((_id, index) => `tok_${index}`));
      });

      it('keeps the account-environment marker apart from the group of the same name', async () => {
        const marker = entry('account-environment-marker', { account: 'acct-1', fingerprint: '' });
        await a.set('account-environment:acct-1', marker, 60_000);
        await a.set('acct-1', entry('tok_group'), 60_000);
        expect(await b.get('account-environment:acct-1')).toEqual(marker);
        expect(await b.get('account-environment:acct-2')).toBeUndefined();
        expect((await b.get('acct-1'))?.token).toBe('tok_group');
      });

      it.each([0, -1, Number.NaN, Number.POSITIVE_INFINITY, '100' as unknown as number])('refuses ttlMs %s with a TypeError and stores nothing', async (ttl) => {
        await expect(a.set('acme', entry('tok_1'), ttl)).rejects.toThrow(TypeError);
        await expect(a.setIfAbsent!('acme', entry('tok_1'), ttl)).rejects.toThrow(TypeError);
        await expect(a.tryLock('acme', ttl)).rejects.toThrow(TypeError);
        await expect(a.hit('acme', ttl)).rejects.toThrow(TypeError);
        expect(await b.get('acme')).toBeUndefined();
        expect(await b.tryLock('acme', 60_000)).toBeDefined();
        expect((await b.hit('acme', 60_000)).count).toBe(1);
      });
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

    describe('the vendor budget (GCRA)', () => {
      // One call a second, a bucket of 5: wide enough that a slow machine cannot refill it mid-test.
      const request: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

      it('is one budget per key for every client: a burst admits the bucket, refusals say when to retry', async () => {
        const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).reserveBudget!('acct-1', request)));
        expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
        for (const d of decisions) {
          if (d.admitted) expect(d.waitMs).toBe(0);
          else expect(d.retryAfterMs).toBeGreaterThan(0);
        }
        expect(await a.reserveBudget!('acct-2', request)).toMatchObject({ admitted: true, waitMs: 0 });
      });

      it('gives waiting callers their own slots, one interval apart', async () => {
        // Fill the bucket until it refuses: five calls one after another can outlast an interval on a
        // loaded machine (the bucket refills meanwhile), so count to the refusal, not to five.
        for (let i = 0; i < 20 && (await a.reserveBudget!('acct-1', request)).admitted; i++);
        const started = Date.now();
        const waits = await Promise.all(Array.from({ length: 3 }, (_, i) => (i % 2 ? a : b).reserveBudget!('acct-1', { ...request, maxLatenessMs: 5000 })));
        // Each wait is counted from when the store took the call; the calls were taken within `spread`.
        const spread = Date.now() - started;
        const ms = waits.map((d) => (d.admitted ? d.waitMs : -1)).sort((x, y) => x - y);
        // A slot refilled since the refusal may admit the first caller at once; the others wait.
        expect(ms[0]).toBeGreaterThanOrEqual(0);
        expect(ms[1]).toBeGreaterThan(0);
        expect(ms[1]! - ms[0]!).toBeGreaterThanOrEqual(1000 - spread);
        expect(ms[2]! - ms[1]!).toBeGreaterThanOrEqual(1000 - spread);
        expect(ms[2]).toBeLessThanOrEqual(3000);
      });

      it('pauses for a vendor Retry-After: nothing is admitted until it has passed', async () => {
        expect(await a.reserveBudget!('acct-1', { ...request, pauseMs: 20_000 })).toMatchObject({ admitted: false, retryAfterMs: 20_000 });
        const refused = await b.reserveBudget!('acct-1', { ...request, maxLatenessMs: 3000 });
        expect(refused.admitted).toBe(false);
        expect(!refused.admitted && refused.retryAfterMs).toBeGreaterThan(15_000);
        expect((await b.reserveBudget!('acct-2', request)).admitted).toBe(true);
      });
    });

    describe('the vendor budget across a store failure', () => {
      const request: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

      it('says how far the budget is ahead of now after each step', async () => {
        const first = await a.reserveBudget!('acct-1', request);
        expect(first.aheadMs).toBeGreaterThan(900);
        expect(first.aheadMs).toBeLessThanOrEqual(1000);
        for (let i = 0; i < 4; i++) await b.reserveBudget!('acct-1', request);
        const refused = await a.reserveBudget!('acct-1', request);
        expect(refused.admitted).toBe(false);
        expect(refused.aheadMs).toBeGreaterThan(4000);
        expect(refused.aheadMs).toBeLessThanOrEqual(5000);
      });

      it('resumes from a floor the caller knew, and keeps it for every client, when the store has no budget (lost in a restart)', async () => {
        const floored = await a.reserveBudget!('acct-1', { ...request, floorMs: 5000 });
        expect(floored.admitted).toBe(false);
        expect((await b.reserveBudget!('acct-1', request)).admitted).toBe(false);
        expect((await b.reserveBudget!('acct-2', { ...request, floorMs: -60_000 })).admitted).toBe(true);
      });

      it('charges calls made while the store failed before the step', async () => {
        const decisions = [await a.reserveBudget!('acct-1', { ...request, debtCalls: 4 })];
        for (let i = 0; i < 2; i++) decisions.push(await b.reserveBudget!('acct-1', request));
        expect(decisions.map((d) => d.admitted)).toEqual([true, false, false]);
      });
    });

    it('answers ping', async () => {
      await expect(a.ping()).resolves.toBeUndefined();
      await expect(b.ping()).resolves.toBeUndefined();
    });
  });
}
