import { describe, expect, it } from 'vitest';
import { bodySnippet, redact, sanitizeCause } from './redact.js';

describe('redact', () => {
  it('removes every occurrence of each secret and JSON token fields', () => {
    expect(redact('k1 and k1 and k2', ['k1', 'k2', ''])).toBe('[redacted] and [redacted] and [redacted]');
    expect(redact('{"token": "abc", "current_token":"d\\"e", "name":"n"}', [])).toBe('{"token": "[redacted]", "current_token":"[redacted]", "name":"n"}');
  });

  it('redacts before cutting a snippet, so no prefix of a secret survives the cut', () => {
    const secret = 'S'.repeat(50);
    const snippet = bodySnippet(`${'a'.repeat(180)}${secret}`, [secret]);
    expect(snippet).not.toContain('SSSS');
  });
});

describe('sanitizeCause', () => {
  it('returns a clean error unchanged', () => {
    const error = new Error('fine', { cause: new Error('also fine') });
    expect(sanitizeCause(error, ['secret'])).toBe(error);
  });

  it('replaces an error whose cause chain mentions a secret, keeping name and code', () => {
    const error = Object.assign(new TypeError('outer', { cause: new Error('has secret inside') }), { code: 'E_X' });
    const clean = sanitizeCause(error, ['secret']) as Error & { code?: string };
    expect(clean).not.toBe(error);
    expect(clean.name).toBe('TypeError');
    expect(clean.code).toBe('E_X');
    expect(clean.cause).toBeUndefined();
  });

  it('looks into own properties without running getters, and survives cycles and hostile proxies', () => {
    const cyclic: Record<string, unknown> = { name: 'clean' };
    cyclic.self = cyclic;
    expect(sanitizeCause(cyclic, ['secret'])).toBe(cyclic);
    let getterRan = false;
    const withGetter = Object.defineProperty(new Error('x'), 'lazy', {
      get() {
        getterRan = true;
        return 'secret';
      },
    });
    expect(sanitizeCause(withGetter, ['secret'])).toBe(withGetter);
    expect(getterRan).toBe(false);
    const nested = Object.assign(new Error('x'), { request: { headers: [['authorization', 'Token secret']] } });
    const clean = sanitizeCause(nested, ['secret']) as Error;
    expect(clean).not.toBe(nested);
    expect(clean.message).toBe('x');
    expect(clean).not.toHaveProperty('request');
    const hostile = new Proxy(new Error('x'), {
      ownKeys() {
        throw new Error('no keys for you');
      },
    });
    expect(sanitizeCause(hostile, ['secret'])).not.toBe(hostile);
  });

  it('handles non-errors, including a hostile toString', () => {
    expect((sanitizeCause('token secret', ['secret']) as Error).message).toBe('token [redacted]');
    const hostile = {
      toString() {
        throw new Error('nope');
      },
    };
    expect(sanitizeCause(hostile, ['secret'])).toBe(hostile);
  });
});
