import { describe, expect, it } from 'vitest';
import { canonicalLocale, exploSrc, isRefreshMinutes, resolveSrc } from './frame-src.js';

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

  it('encodes arrays and objects as JSON values, as the vendor documents (?var_3=["a","b"])', () => {
    const url = exploSrc('https://d.example.com/iframe/{dashboard}', { dashboard: 'sales' }, { regions: ['EU', 'US'], var_5: { a: 1 } });
    expect(url!.searchParams.get('regions')).toBe('["EU","US"]');
    expect(JSON.parse(url!.searchParams.get('var_5')!)).toEqual({ a: 1 });
  });

  it('puts locale_code and refresh-minutes after the variables: a variable of the same name does not replace them', () => {
    const url = exploSrc('https://d.example.com/iframe/{dashboard}', { dashboard: 'sales', localeCode: 'de-DE', refreshMinutes: 5 }, { locale_code: 'x' });
    expect(url!.searchParams.get('locale_code')).toBe('de-DE');
    expect(url!.searchParams.get('refresh-minutes')).toBe('5');
  });
});

describe('iframe options', () => {
  it('puts locale_code and refresh-minutes in the query; given ones replace the template’s, absent ones keep it', () => {
    const template = 'https://d.example.com/iframe/{dashboard}?locale_code=fr&refresh-minutes=30';
    expect(resolveSrc(template, { dashboard: 'a' })!.search).toBe('?locale_code=fr&refresh-minutes=30');
    expect(Object.fromEntries(resolveSrc(template, { dashboard: 'a', localeCode: 'de-DE' })!.searchParams)).toEqual({
      locale_code: 'de-DE',
      'refresh-minutes': '30',
    });
    expect(resolveSrc('https://d.example.com/{dashboard}', { dashboard: 'a', refreshMinutes: 15 })!.search).toBe('?refresh-minutes=15');
  });

  it('canonicalLocale takes one BCP 47 tag and gives its canonical form', () => {
    expect(canonicalLocale('en-us')).toBe('en-US');
    expect(canonicalLocale('de')).toBe('de');
    for (const bad of ['', 'not a locale', 'en_US', 'x'.repeat(65), 5, null, ['en']]) expect(canonicalLocale(bad)).toBeUndefined();
  });

  it('isRefreshMinutes takes whole minutes from 1 to 1440', () => {
    expect([1, 15, 1440].every(isRefreshMinutes)).toBe(true);
    for (const bad of [0, -1, 1.5, 1441, Number.NaN, Number.POSITIVE_INFINITY, '5']) expect(isRefreshMinutes(bad)).toBe(false);
  });
});
