import { beforeEach, describe, expect, it } from 'vitest';
import { groupEntry as entry } from '../group-entry.js';
import type { TokenStore } from '../../../src/store/types.js';
import { eventually, type ContractStores } from './shared.js';

/** The contract's entries: get/set/delete with their ttl, `setIfAbsent`, `setIfAbsentOrSuperseded`, hostile keys, the account-environment marker. */
export function describeEntryContract(current: () => ContractStores): void {
  let a: TokenStore;
  let b: TokenStore;
  beforeEach(() => {
    ({ a, b } = current());
  });

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
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? a : b).setIfAbsentOrSuperseded!('acme', entry(`tok_${i}`, { previousToken: 'tok_before' }), 60_000, ['tok_before']),
        ),
      );
      expect(wrote.filter(Boolean)).toHaveLength(1);
      expect((await a.get('acme'))?.token).toBe(`tok_${wrote.indexOf(true)}`);
    });

    it('keeps hostile group keys apart (colons, unicode, lone surrogates, very long, empty)', async () => {
      const ids = [
        'a',
        'a:b',
        'a:b:',
        ':a',
        'group:a',
        '=a',
        '%003a',
        '/a/../b',
        'Zürich',
        'Zu\u0308rich',
        '🦄',
        '\uD800',
        '\uDBFF',
        'x'.repeat(100_000),
        `${'x'.repeat(100_000)}y`,
        '',
      ];
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
}
