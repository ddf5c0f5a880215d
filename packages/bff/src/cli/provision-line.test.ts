import { describe, expect, it } from 'vitest';
import { parseProvisionLine } from './provision.js';

const line = (extra: Record<string, unknown> = {}) => JSON.stringify({ user_group_id: 'acme', name: 'Acme', properties: { region: 'EU' }, ...extra });

describe("provision: a line's mapping follows the BFF's rule", () => {
  it("sends no mapping without one on the line or in EMBED_MAPPING, so the vendor's stays", () => {
    expect(parseProvisionLine(line(), undefined)).toEqual({ user_group_id: 'acme', name: 'Acme', properties: { region: 'EU' } });
    expect(parseProvisionLine(line(), undefined)).not.toHaveProperty('mapping');
  });

  it("takes the line's mapping over EMBED_MAPPING's, and EMBED_MAPPING's when the line has none", () => {
    expect(parseProvisionLine(line({ mapping: { s: 'line' } }), { s: 'env' })).toMatchObject({ mapping: { s: 'line' } });
    expect(parseProvisionLine(line(), { s: 'env' })).toMatchObject({ mapping: { s: 'env' } });
  });

  it.each([
    [line({ mapping: null }), /mapping must be an object of strings/],
    [line({ mapping: ['ds'] }), /mapping must be an object of strings/],
    [line({ mapping: { s: 1 } }), /mapping must be an object of strings/],
    [line({ mapping: {}, extra: 1 }), /unknown field "extra"/],
  ])('reports a bad mapping line %# by reason', (text, reason) => {
    expect(parseProvisionLine(text, undefined)).toMatch(reason);
  });
});
