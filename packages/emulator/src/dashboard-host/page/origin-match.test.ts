import { describe, expect, it } from 'vitest';
import { matchesOrigin, resolveParentOrigin } from './origin-match.js';

describe('matchesOrigin', () => {
  it.each([
    ['http://localhost:*', 'http://localhost:5174'],
    ['http://localhost:*', 'http://localhost'],
    ['http://127.0.0.1:*', 'http://127.0.0.1:1'],
    ['http://[::1]:*', 'http://[::1]:8080'],
    ['https://app.example.com', 'https://app.example.com'],
  ])('%s allows %s', (pattern, origin) => {
    expect(matchesOrigin(pattern, origin)).toBe(true);
  });

  it.each([
    ['http://localhost:*', 'https://localhost:5174'],
    ['http://localhost:*', 'http://localhost.evil.com:5174'],
    ['http://localhost:*', 'http://evil-localhost:5174'],
    ['http://localhost:*', 'http://localhost:5174/path'],
    ['http://localhost:*', 'null'],
    ['http://localhost:*', ''],
    ['https://app.example.com', 'https://app.example.com:8443'],
    ['https://app.example.com', 'https://evil.app.example.com'],
    ['*', 'https://anything.com'],
  ])('%s refuses %s', (pattern, origin) => {
    expect(matchesOrigin(pattern, origin)).toBe(false);
  });
});

describe('resolveParentOrigin', () => {
  const allowed = ['http://localhost:*', 'https://app.example.com'];
  const resolve = (ancestorOrigin: string | undefined, queryOrigin: string | null, referrer: string) =>
    resolveParentOrigin({ ancestorOrigin, queryOrigin, referrer }, allowed, matchesOrigin);

  it("trusts the browser's ancestorOrigins over the URL and the referrer", () => {
    expect(resolve('https://app.example.com', 'http://localhost:1', 'http://localhost:2/page')).toBe('https://app.example.com');
  });

  it('refuses a disallowed ancestor even when the URL names an allowed origin', () => {
    expect(resolve('https://evil.com', 'https://app.example.com', '')).toBeUndefined();
  });

  it('falls back to ?origin=, then to the referrer origin', () => {
    expect(resolve(undefined, 'http://localhost:5174', 'https://app.example.com/x')).toBe('http://localhost:5174');
    expect(resolve(undefined, null, 'http://localhost:5174/app?x=1')).toBe('http://localhost:5174');
  });

  it.each([
    [undefined, null, ''],
    [undefined, 'https://evil.com', ''],
    [undefined, null, 'https://evil.com/app'],
    [undefined, null, 'not a url'],
    ['null', null, ''],
    [undefined, 'null', ''],
  ])('finds no origin for ancestor %s, query %s, referrer %s', (ancestor, query, referrer) => {
    expect(resolve(ancestor, query, referrer)).toBeUndefined();
  });
});
