import { describe, expect, it } from 'vitest';
import type { GroupEntry } from './types.js';
import { decodeEntry, encodeEntry, MAX_ENTRY_BYTES } from './entry-codec.js';

const entry: GroupEntry = {
  token: 'tok_abc',
  firstSeenAt: 1_790_000_000_000,
  fingerprint: 'fp1',
  previousToken: null,
  environment: 'Customer',
  syncedAt: 1_790_000_000_500,
  lastRotatedAt: null,
};

const envelope = (e: unknown, v: unknown = 1) => JSON.stringify({ v, e });

describe('entry codec', () => {
  it('round-trips an entry', () => {
    expect(decodeEntry(encodeEntry(entry))).toEqual(entry);
    const rotated: GroupEntry = { ...entry, previousToken: 'tok_old', environment: null, lastRotatedAt: 1_790_000_001_000 };
    expect(decodeEntry(encodeEntry(rotated))).toEqual(rotated);
    const scoped: GroupEntry = { ...entry, account: '0123456789abcdef' };
    expect(decodeEntry(encodeEntry(scoped))).toEqual(scoped);
  });

  it('round-trips every field, in the stored format the Redis scripts and earlier processes read', () => {
    const full: Required<GroupEntry> = {
      ...entry,
      previousToken: 'tok_old',
      lastRotatedAt: 1_790_000_001_000,
      account: 'acct-1',
      claimsIssuedAt: 1_789_999_999_000,
    };
    expect(decodeEntry(encodeEntry(full))).toEqual(full);
    expect(encodeEntry(full)).toBe(
      '{"v":1,"e":{"token":"tok_abc","firstSeenAt":1790000000000,"fingerprint":"fp1","previousToken":"tok_old","environment":"Customer",' +
        '"syncedAt":1790000000500,"lastRotatedAt":1790000001000,"account":"acct-1","claimsIssuedAt":1789999999000}}',
    );
    // Entries written before the optional fields existed still read, without them.
    expect(decodeEntry(envelope(entry))).toEqual(entry);
    expect(Object.keys(decodeEntry(envelope(entry))!)).not.toContain('account');
  });

  it.each(['token', 'firstSeenAt', 'fingerprint', 'previousToken', 'environment', 'syncedAt', 'lastRotatedAt'] as const)(
    'treats an entry without its required field %s as a miss',
    (name) => {
      const { [name]: _dropped, ...rest } = entry;
      expect(decodeEntry(envelope(rest))).toBeUndefined();
    },
  );

  it('stores only the entry fields, not whatever else an object carries', () => {
    const withExtra = { ...entry, apiToken: 'secret' } as GroupEntry;
    expect(encodeEntry(withExtra)).not.toContain('secret');
  });

  it.each([
    ['nothing', null],
    ['not JSON', 'tok_abc'],
    ['truncated JSON', encodeEntry(entry).slice(0, 20)],
    ['a JSON string', JSON.stringify('tok_abc')],
    ['a JSON array', JSON.stringify([entry])],
    ['a bare entry without the envelope', JSON.stringify(entry)],
    ['another format version', envelope(entry, 2)],
    ['an envelope without an entry', envelope(null)],
    ['an empty token', envelope({ ...entry, token: '' })],
    ['a numeric token', envelope({ ...entry, token: 42 })],
    ['an absurdly long token', envelope({ ...entry, token: 'x'.repeat(5_000) })],
    ['a missing token', envelope({ ...entry, token: undefined })],
    ['a string time', envelope({ ...entry, firstSeenAt: '1790000000000' })],
    ['a negative time', envelope({ ...entry, syncedAt: -1 })],
    ['a string session time', envelope({ ...entry, claimsIssuedAt: '1790000000000' })],
    ['a missing fingerprint', envelope({ ...entry, fingerprint: undefined })],
    ['an object as previous token', envelope({ ...entry, previousToken: {} })],
    ['an unknown environment', envelope({ ...entry, environment: 'Production' })],
    ['a string rotation time', envelope({ ...entry, lastRotatedAt: 'yesterday' })],
    ['a numeric account', envelope({ ...entry, account: 42 })],
    ['an empty account', envelope({ ...entry, account: '' })],
    ['an absurdly long account', envelope({ ...entry, account: 'a'.repeat(129) })],
    ['an oversized value', envelope({ ...entry, fingerprint: 'x'.repeat(MAX_ENTRY_BYTES) })],
  ])('treats %s as a miss', (_name, raw) => {
    expect(decodeEntry(raw)).toBeUndefined();
  });
});
