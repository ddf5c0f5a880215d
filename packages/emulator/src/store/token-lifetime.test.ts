import { describe, expect, it } from 'vitest';
import { createEmulator } from '../emulator.js';
import { callApi, group } from '../../test/support/call-api.js';

function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

describe('token lifetime', () => {
  it('issues distinct base64url tokens of 192 random bits', async () => {
    const { app } = createEmulator();
    const tokens = new Set<string>();
    for (let i = 0; i < 50; i++) tokens.add((await callApi(app, 'GET', { body: group(`g${i}`) })).body.user_group.token);
    expect(tokens.size).toBe(50);
    for (const token of tokens) expect(Buffer.from(token, 'base64url').byteLength).toBe(24);
  });

  it('stops honouring a token tokenTtlSeconds after issue, and rotate still accepts it as current', async () => {
    const time = clock();
    const { app, resolveToken } = createEmulator({ tokenTtlSeconds: 60, now: time.now });
    const token = (await callApi(app, 'GET', { body: group('acme') })).body.user_group.token;
    time.advance(59_999);
    expect(resolveToken(token)?.providedId).toBe('acme');
    time.advance(1);
    expect(resolveToken(token)).toBeUndefined();
    // get-or-create does not update: it still returns the expired token.
    expect((await callApi(app, 'GET', { body: group('acme') })).body.user_group.token).toBe(token);
    const rotated = await callApi(app, 'POST', { body: { current_token: token } });
    expect(rotated.status).toBe(200);
    expect(resolveToken(rotated.body.user_group.token)?.providedId).toBe('acme');
  });

  it('never expires tokens with a TTL of 0', async () => {
    const time = clock();
    const { app, resolveToken } = createEmulator({ now: time.now });
    const token = (await callApi(app, 'GET', { body: group('acme') })).body.user_group.token;
    time.advance(10 * 365 * 86_400_000);
    expect(resolveToken(token)).toBeDefined();
  });

  it('keeps a rotated-out token working for the grace period only', async () => {
    const time = clock();
    const { app, resolveToken } = createEmulator({ rotationGraceSeconds: 30, now: time.now });
    const old = (await callApi(app, 'GET', { body: group('acme') })).body.user_group.token;
    const fresh = (await callApi(app, 'POST', { body: { current_token: old } })).body.user_group.token;
    time.advance(29_999);
    expect(resolveToken(old)?.providedId).toBe('acme');
    expect((await callApi(app, 'POST', { body: { current_token: old } })).status).toBe(404);
    time.advance(1);
    expect(resolveToken(old)).toBeUndefined();
    expect(resolveToken(fresh)).toBeDefined();
  });

  it('expireToken stops a token at once; the holder recovers by rotating it', async () => {
    const emulator = createEmulator();
    const token = (await callApi(emulator.app, 'GET', { body: group('acme') })).body.user_group.token;
    expect(emulator.expireToken(token)).toBe(true);
    expect(emulator.resolveToken(token)).toBeUndefined();
    expect(emulator.expireToken('never-issued')).toBe(false);
    const rotated = await callApi(emulator.app, 'POST', { body: { current_token: token } });
    expect(emulator.resolveToken(rotated.body.user_group.token)).toBeDefined();
  });

  it('resolveToken answers undefined for junk', () => {
    const { resolveToken } = createEmulator();
    for (const junk of ['', 'x', '__proto__', 'constructor', 'a'.repeat(10_000)]) expect(resolveToken(junk)).toBeUndefined();
  });

  it('reset forgets groups and tokens', async () => {
    const emulator = createEmulator();
    const token = (await callApi(emulator.app, 'GET', { body: group('acme') })).body.user_group.token;
    emulator.reset();
    expect(emulator.resolveToken(token)).toBeUndefined();
    expect(emulator.stats()).toEqual({ requests: { getOrCreate: 0, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 0 });
    expect((await callApi(emulator.app, 'GET', { body: group('acme') })).body.new_user_group).toBe(true);
  });
});

describe('options', () => {
  it.each([
    [{ apiKeys: [] }, 'apiKeys'],
    [{ apiKeys: [{ token: 'has space', environment: 'Customer' as const }] }, 'apiKeys'],
    [{ apiKeys: [{ token: 'k', environment: 'Prod' as never }] }, 'environment'],
    [
      {
        apiKeys: [
          { token: 'k', environment: 'Customer' as const },
          { token: 'k', environment: 'Testing' as const },
        ],
      },
      'repeat',
    ],
    [{ tokenTtlSeconds: -1 }, 'tokenTtlSeconds'],
    [{ rotationGraceSeconds: Number.NaN }, 'rotationGraceSeconds'],
    [{ maxBodyBytes: 0 }, 'maxBodyBytes'],
    [{ faults: { dropRate: 2 } }, 'dropRate'],
    [{ embedOrigins: [''] }, 'embedOrigins'],
    [{ dataFile: '' }, 'dataFile'],
  ])('throws a TypeError naming the bad option %#', (options, name) => {
    expect(() => createEmulator(options)).toThrow(TypeError);
    expect(() => createEmulator(options)).toThrow(name);
  });

  it('accepts custom keys and refuses the defaults then', async () => {
    const { app } = createEmulator({ apiKeys: [{ token: 'mine', environment: 'Testing' }] });
    expect((await callApi(app, 'GET', { body: group('a') })).status).toBe(401);
    const { body } = await callApi(app, 'PUT', { key: 'mine', body: group('a') });
    expect(body.error.code).toBe('not_found');
  });
});
