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
