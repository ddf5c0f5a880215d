import { describe, expect, it } from 'vitest';
import { DriftPolicy } from './drift-policy.js';

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
