import { describe, expect, it } from 'vitest';
import { groupFingerprint } from './fingerprint.js';

const base = { user_group_id: 'acme', name: 'Acme', properties: { region: 'eu', plan: { tier: 'pro', seats: 5 } }, mapping: { s: 'd' } };

describe('groupFingerprint', () => {
  it('ignores key order at every depth', () => {
    const reordered = { mapping: { s: 'd' }, properties: { plan: { seats: 5, tier: 'pro' }, region: 'eu' }, name: 'Acme', user_group_id: 'acme' };
    expect(groupFingerprint(reordered)).toBe(groupFingerprint(base));
  });

  it('changes with name, properties or mapping', () => {
    const fp = groupFingerprint(base);
    expect(groupFingerprint({ ...base, name: 'Acme Corp' })).not.toBe(fp);
    expect(groupFingerprint({ ...base, properties: { ...base.properties, region: 'us' } })).not.toBe(fp);
    expect(groupFingerprint({ ...base, mapping: { s: 'other' } })).not.toBe(fp);
  });

  it('does not depend on the group id (the id is the key)', () => {
    expect(groupFingerprint({ ...base, user_group_id: 'other' })).toBe(groupFingerprint(base));
  });

  it('tells a nested string from a nested object', () => {
    expect(groupFingerprint({ ...base, properties: { a: '{"b":1}' } })).not.toBe(groupFingerprint({ ...base, properties: { a: { b: 1 } } }));
  });
});
