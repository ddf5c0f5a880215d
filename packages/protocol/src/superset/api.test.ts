import { describe, expect, it } from 'vitest';
import { isSupersetEmbeddedUuid } from './api.js';

describe('isSupersetEmbeddedUuid', () => {
  it('takes an embedded config UUID as Superset writes it', () => {
    expect(isSupersetEmbeddedUuid('0a6b3c1e-2f4d-4e5a-9b7c-8d9e0f1a2b3c')).toBe(true);
  });

  it.each([
    ['upper case', '0A6B3C1E-2F4D-4E5A-9B7C-8D9E0F1A2B3C'],
    ['no hyphens', '0a6b3c1e2f4d4e5a9b7c8d9e0f1a2b3c'],
    ['a dashboard id', '7'],
    ['a slug', 'sales'],
    ['a path', '../0a6b3c1e-2f4d-4e5a-9b7c-8d9e0f1a2b3c'],
    ['trailing text', '0a6b3c1e-2f4d-4e5a-9b7c-8d9e0f1a2b3c/x'],
    ['empty', ''],
    ['a number', 7],
    ['an object', { toString: () => '0a6b3c1e-2f4d-4e5a-9b7c-8d9e0f1a2b3c' }],
  ])('refuses %s', (_name, value) => {
    expect(isSupersetEmbeddedUuid(value)).toBe(false);
  });
});
