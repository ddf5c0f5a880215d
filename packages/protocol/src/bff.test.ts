import { describe, expect, it } from 'vitest';
import { BFF_ERROR_STATUS, BffErrorCode, isBffErrorBody, isTokenResponse } from './bff.js';

describe('isTokenResponse', () => {
  it('accepts the documented shape with and without an expiry', () => {
    expect(isTokenResponse({ token: 't', expiresAt: 1, serverTime: 2 })).toBe(true);
    expect(isTokenResponse({ token: 't', expiresAt: null, serverTime: 2 })).toBe(true);
  });

  it.each([null, 'x', {}, { token: '', expiresAt: null, serverTime: 1 }, { token: 't', expiresAt: '1', serverTime: 1 }, { token: 't', expiresAt: null }, { token: 't', expiresAt: null, serverTime: Number.NaN }])(
    'rejects %j',
    (value) => {
      expect(isTokenResponse(value)).toBe(false);
    },
  );
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
