import { describe, expect, it } from 'vitest';
import { groupEntry } from '../../test/support/group-entry.js';
import { DriftPolicy, MAX_ISSUED_AT_SKEW_MS } from './drift-policy.js';

const input = { user_group_id: 'acme', name: 'Acme', properties: { region: 'EU', plan: 'pro' }, mapping: { sales: 'ds-1' } };
const vendor = { token: 't', provided_id: 'acme', name: 'Acme', properties: { plan: 'pro', region: 'EU' } };

describe('DriftPolicy.answerMatches', () => {
  it('holds when the name and the returned properties are the session’s, whatever their key order', () => {
    expect(DriftPolicy.answerMatches(vendor, input)).toBe(true);
  });

  it('fails on another name, other properties, or properties the vendor did not return', () => {
    expect(DriftPolicy.answerMatches({ ...vendor, name: 'Acme Inc' }, input)).toBe(false);
    expect(DriftPolicy.answerMatches({ ...vendor, properties: { region: 'ALL', plan: 'pro' } }, input)).toBe(false);
    expect(DriftPolicy.answerMatches({ token: 't', provided_id: 'acme', name: 'Acme' }, input)).toBe(false);
    // `null` is "none": it matches a session with no properties only.
    expect(DriftPolicy.answerMatches({ ...vendor, properties: null }, input)).toBe(false);
    expect(DriftPolicy.answerMatches({ ...vendor, properties: null }, { ...input, properties: {} })).toBe(true);
  });
});

describe('the mapping in DriftPolicy: compared only when the session manages it and the answer carries it', () => {
  const { mapping: _unmanaged, ...unmanaged } = input;
  it('never takes a mapping set at the vendor for drift when the session gives none', () => {
    expect(DriftPolicy.vendorDiffers({ ...vendor, mapping: { schema_1: 'ds_eu' } }, unmanaged)).toBe(false);
    expect(DriftPolicy.answerMatches({ ...vendor, mapping: { schema_1: 'ds_eu' } }, unmanaged)).toBe(true);
  });

  it('corrects a managed mapping the vendor shows otherwise, whatever the key order; an answer without one proves nothing', () => {
    expect(DriftPolicy.vendorDiffers({ ...vendor, mapping: { sales: 'ds-2' } }, input)).toBe(true);
    expect(DriftPolicy.vendorDiffers({ ...vendor, mapping: {} }, input)).toBe(true);
    expect(DriftPolicy.answerMatches({ ...vendor, mapping: { sales: 'ds-2' } }, input)).toBe(false);
    expect(DriftPolicy.vendorDiffers({ ...vendor, mapping: { sales: 'ds-1' } }, input)).toBe(false);
    expect(DriftPolicy.vendorDiffers({ ...vendor, mapping: { b: '2', a: '1' } }, { ...input, mapping: { a: '1', b: '2' } })).toBe(false);
    expect(DriftPolicy.vendorDiffers(vendor, input)).toBe(false);
  });
});

describe('DriftPolicy.mayRewrite', () => {
  const now = 1_790_000_000_000;
  const synced = groupEntry('t', { fingerprint: 'fp-m', claimsIssuedAt: now - 60_000 });

  it('lets a newer session rewrite and an older one not', () => {
    expect(DriftPolicy.mayRewrite(synced, { fingerprint: 'fp-a', issuedAtMs: now - 59_000 }, now)).toBe(true);
    expect(DriftPolicy.mayRewrite(synced, { fingerprint: 'fp-z', issuedAtMs: now - 61_000 }, now)).toBe(false);
  });

  it('gives equal iat to the greater fingerprint, in either order', () => {
    expect(DriftPolicy.mayRewrite(synced, { fingerprint: 'fp-z', issuedAtMs: now - 60_000 }, now)).toBe(true);
    expect(DriftPolicy.mayRewrite(synced, { fingerprint: 'fp-a', issuedAtMs: now - 60_000 }, now)).toBe(false);
    const other = groupEntry('t', { fingerprint: 'fp-z', claimsIssuedAt: now - 60_000 });
    expect(DriftPolicy.mayRewrite(other, { fingerprint: 'fp-m', issuedAtMs: now - 60_000 }, now)).toBe(false);
  });

  it('lets any session rewrite an entry with no recorded iat, or one recorded beyond the skew (pinned before such sessions were refused)', () => {
    expect(DriftPolicy.mayRewrite(undefined, { fingerprint: 'fp-a', issuedAtMs: 0 }, now)).toBe(true);
    expect(DriftPolicy.mayRewrite(groupEntry('t'), { fingerprint: 'fp-a', issuedAtMs: 0 }, now)).toBe(true);
    const pinned = groupEntry('t', { fingerprint: 'fp-z', claimsIssuedAt: now + 3_600_000 });
    expect(DriftPolicy.mayRewrite(pinned, { fingerprint: 'fp-a', issuedAtMs: now - 1000 }, now)).toBe(true);
    expect(DriftPolicy.syncedIssuedAt(pinned, now)).toBeUndefined();
    const withinSkew = groupEntry('t', { fingerprint: 'fp-z', claimsIssuedAt: now + MAX_ISSUED_AT_SKEW_MS });
    expect(DriftPolicy.mayRewrite(withinSkew, { fingerprint: 'fp-a', issuedAtMs: now - 1000 }, now)).toBe(false);
  });
});
