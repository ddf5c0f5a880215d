import { describe, expect, it } from 'vitest';
import { BFF_ERROR_STATUS, BffErrorCode, isBffErrorBody, isTokenResponse } from './bff.js';
import { isUserGroupToken, MAX_USER_GROUP_TOKEN_CHARS } from './vendor.js';

/** Shapes the vendor documents for its tokens (docs.explo.co: refresh_user_group_token's 64-hex example; embed JWTs/JWEs). */
const DOCUMENTED_TOKENS = [
  'a'.repeat(64),
  '0f3c9a7be21d4c8e9f0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6a',
  'Ez8i68V5l3hPoyRPVimoh74SoMsOnTgv',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJjc3QiOiJjdXN0b21lcl8xIiwiZHNoIjoiYWJjZGVmIn0.OpOSSw7e485LOP5PrzScxHb7SR6sAOMRckfFwi4rp7o',
  // JWE compact with direct encryption: the encrypted-key segment is empty.
  'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwia2lkIjoiazEifQ..48V1_ALb6US04U3b.5eym8TW_c8SuK0ltJ3rpYIzOeDQz7TALvtu6UG9oMo4vpzs9tX_EFShS8iB7j6ji.XFBoMYUZodetZdvTiFvSkQ',
  'x'.repeat(MAX_USER_GROUP_TOKEN_CHARS),
];

describe('isUserGroupToken', () => {
  it.each(DOCUMENTED_TOKENS)('accepts the documented shape %#', (token) => {
    expect(isUserGroupToken(token)).toBe(true);
    expect(isTokenResponse({ token, expiresAt: null, serverTime: 1 })).toBe(true);
  });

  it.each([
    ['markup', 'abc<script>alert(1)</script>'],
    ['NUL', 'abc\u0000def'],
    ['CR/LF', 'abc\r\nSet-Cookie: x=1'],
    ['U+2028', 'abc\u2028def'],
    ['100 KB of text', 'a'.repeat(100 * 1024)],
    ['one character over the limit', 'x'.repeat(MAX_USER_GROUP_TOKEN_CHARS + 1)],
    ['URL syntax', 'a/b?c=d&e#f'],
    ['a space', 'abc def'],
    ['a quote', 'abc"def'],
    ['the empty string', ''],
    ['a number', 42],
  ])('refuses %s', (_, token) => {
    expect(isUserGroupToken(token)).toBe(false);
    expect(isTokenResponse({ token, expiresAt: null, serverTime: 1 })).toBe(false);
  });
});

describe('isTokenResponse', () => {
  it('accepts the documented shape with and without an expiry', () => {
    expect(isTokenResponse({ token: 't', expiresAt: 1, serverTime: 2 })).toBe(true);
    expect(isTokenResponse({ token: 't', expiresAt: null, serverTime: 2 })).toBe(true);
  });

  it.each([
    null,
    'x',
    {},
    { token: '', expiresAt: null, serverTime: 1 },
    { token: 't', expiresAt: '1', serverTime: 1 },
    { token: 't', expiresAt: null },
    { token: 't', expiresAt: null, serverTime: Number.NaN },
  ])('rejects %j', (value) => {
    expect(isTokenResponse(value)).toBe(false);
  });
});

describe('BFF error codes', () => {
  it('gives every code a status', () => {
    for (const code of Object.values(BffErrorCode)) expect(BFF_ERROR_STATUS[code]).toBeGreaterThanOrEqual(400);
  });

  it('recognises error bodies', () => {
    expect(isBffErrorBody({ error: { code: 'internal', message: 'm', retryable: true } })).toBe(true);
    expect(isBffErrorBody({ error: { code: 'internal', message: 'm' } })).toBe(false);
    expect(isBffErrorBody(null)).toBe(false);
  });
});
