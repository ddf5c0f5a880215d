import { describe, expect, it } from 'vitest';
import { exploSrc, resolveSrc } from './frame-src.js';

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

describe('exploSrc', () => {
  it('puts each variable in the query as a JSON value', () => {
    const url = exploSrc(
      'https://d.example.com/iframe/{dashboard}/{token}',
      { dashboard: 'sales', token: 't/1' },
      { region: 'EU', seats: 5, trial: false, note: null },
    );
    expect(url!.pathname).toBe('/iframe/sales/t%2F1');
    expect(Object.fromEntries(url!.searchParams)).toEqual({ region: '"EU"', seats: '5', trial: 'false', note: 'null' });
    expect(exploSrc('https://d.example.com/{token}', { dashboard: 'sales' }, { region: 'EU' })).toBeUndefined();
  });
});
