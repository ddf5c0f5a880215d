import { describe, expect, it } from 'vitest';
import { encodeKeyPart, redisKeys } from './keys.js';

const hostileIds = [
  '',
  'acme',
  'acme:',
  ':acme',
  'a:b',
  'a',
  'b',
  'a::b',
  'group:acme',
  'lock:acme',
  '=acme',
  '%003a',
  '%3A',
  'acme%003a',
  'ACME',
  'acme ',
  ' acme',
  'ac\u0000me',
  'ac\nme',
  '*',
  '?',
  '[a-z]',
  'Zürich',
  'Zu\u0308rich',
  '東京',
  '🦄',
  '\uD83E',
  '\uDD84',
  '\uD800',
  '\uDBFF',
  '\uFFFD',
  'x'.repeat(63),
  'x'.repeat(64),
  'x'.repeat(10_000),
  `${'x'.repeat(10_000)}y`,
  ':'.repeat(500),
  `#${'x'.repeat(43)}`,
];

describe('encodeKeyPart', () => {
  it('gives every distinct hostile id a distinct part', () => {
    const parts = hostileIds.map(encodeKeyPart);
    expect(new Set(parts).size).toBe(hostileIds.length);
  });

  it('never puts a colon, a glob character or a control character into a key', () => {
    for (const id of hostileIds) expect(encodeKeyPart(id)).toMatch(/^[=#][A-Za-z0-9_.%-]*$/);
  });

  it('keeps plain ids readable', () => {
    expect(encodeKeyPart('acme-42_eu.west')).toBe('=acme-42_eu.west');
    expect(encodeKeyPart('a:b')).toBe('=a%003ab');
  });

  it('bounds the length of huge ids by hashing them', () => {
    const part = encodeKeyPart('x'.repeat(1_000_000));
    expect(part.startsWith('#')).toBe(true);
    expect(part.length).toBeLessThanOrEqual(129);
  });

  it('keeps lone surrogates apart (UTF-8 would turn both into U+FFFD)', () => {
    expect(encodeKeyPart('\uD800')).not.toBe(encodeKeyPart('\uDBFF'));
    const longA = `${'x'.repeat(200)}\uD800`;
    const longB = `${'x'.repeat(200)}\uDBFF`;
    expect(encodeKeyPart(longA)).not.toBe(encodeKeyPart(longB));
  });
});

describe('redisKeys', () => {
  it('namespaces each kind under the prefix so kinds never collide', () => {
    const keys = redisKeys('embed:');
    expect(keys.group('acme')).toBe('embed:group:=acme');
    expect(keys.lock('acme')).toBe('embed:lock:=acme');
    expect(keys.hit('acme')).toBe('embed:hit:=acme');
    // A group id that spells another kind's key stays inside the group namespace.
    expect(keys.group('x:lock:=acme')).toBe('embed:group:=x%003alock%003a%003dacme');
  });

  it('refuses a name that is not a string', () => {
    const keys = redisKeys('embed:');
    expect(() => keys.group(42 as unknown as string)).toThrow(TypeError);
    expect(() => keys.lock(undefined as unknown as string)).toThrow(TypeError);
    expect(() => keys.hit(null as unknown as string)).toThrow(TypeError);
  });
});
