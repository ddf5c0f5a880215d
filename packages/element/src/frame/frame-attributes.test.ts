import { describe, expect, it } from 'vitest';
import { parseVariables } from './parse-variables.js';
import { resolveSrc } from './resolve-src.js';

describe('resolveSrc', () => {
  it('substitutes and URL-encodes every placeholder', () => {
    const url = resolveSrc('https://d.example.com/{dashboard}/{environment}?t={token}&again={dashboard}', {
      dashboard: 'a b',
      environment: 'Test&ing',
      token: 'x/y=',
    });
    expect(url!.href).toBe('https://d.example.com/a%20b/Test%26ing?t=x%2Fy%3D&again=a%20b');
    expect(url!.origin).toBe('https://d.example.com');
  });

  it('cannot be steered to another origin by a hostile dashboard id', () => {
    expect(resolveSrc('https://d.example.com/{dashboard}', { dashboard: '@evil.com' })!.origin).toBe('https://d.example.com');
    expect(resolveSrc('https://d.example.com/{dashboard}', { dashboard: '//evil.com' })!.origin).toBe('https://d.example.com');
  });

  it('waits for a token only when the template needs one', () => {
    expect(resolveSrc('https://d.example.com/{dashboard}?t={token}', { dashboard: 'a' })).toBeUndefined();
    expect(resolveSrc('https://d.example.com/{dashboard}', { dashboard: 'a' })).toBeInstanceOf(URL);
  });

  it.each([undefined, '', '/relative/{dashboard}', 'ftp://x.example.com/{dashboard}', 'javascript:alert(1)', 'https://', 'http://exa mple.com'])(
    'rejects %s',
    (template) => {
      expect(() => resolveSrc(template, { dashboard: 'a' })).toThrow(/src-template/);
    },
  );
});

describe('parseVariables', () => {
  it('accepts a JSON object or an object of plain values', () => {
    expect(parseVariables('{"a":"x","b":1,"c":true,"d":null}')).toEqual({ a: 'x', b: 1, c: true, d: null });
    expect(parseVariables({ a: 1 })).toEqual({ a: 1 });
    expect(parseVariables(undefined)).toEqual({});
    expect(parseVariables('')).toEqual({});
  });

  it.each(['{', 'null', '[]', '"x"', '42', '{"a":{}}', '{"a":[1]}', '{"a":1e999}'])('rejects %s', (text) => {
    expect(() => parseVariables(text)).toThrow(/variables must be/);
  });
});
