import { CompactEncrypt, EncryptJWT, decodeProtectedHeader } from 'jose';
import { describe, expect, it } from 'vitest';
import { EmbedKeyring, resolveEmbedSecrets } from './embed-secrets.js';
import { encryptEmbedToken, readEmbedToken } from './embed-token.js';
import { EmbedTokenRegistry } from './embed-token-registry.js';

const VALUE = 'k'.repeat(32);
const NOW = 1_790_000_000_000;
const exp = NOW / 1000 + 3600;
const keyring = new EmbedKeyring(
  resolveEmbedSecrets([
    { id: 'key-1', value: VALUE },
    { id: 'key-t', value: 't'.repeat(32), environment: 'Testing' },
  ]),
);
const secret = keyring.get('key-1')!;
const claims = { cst: 'acme', dsh: 'sales-overview', exp, iss: 'http://localhost:5174/' };

describe('embed secrets', () => {
  it("take the value's 32 UTF-8 bytes as the key and default to the Customer environment", () => {
    const [resolved] = resolveEmbedSecrets([{ id: 'a', value: 'é'.repeat(16) }]);
    expect(resolved!.key).toEqual(new TextEncoder().encode('é'.repeat(16)));
    expect(resolved!.environment).toBe('Customer');
  });

  it.each([
    ['a 31-byte value', [{ id: 'a', value: 'x'.repeat(31) }], /32 bytes.*31/],
    ['a 33-byte value (32 characters, one of two bytes)', [{ id: 'a', value: `é${'x'.repeat(31)}` }], /32 bytes.*33/],
    ['an id with a space', [{ id: 'a b', value: VALUE }], /id must be/],
    ['an id with a colon', [{ id: 'a:b', value: VALUE }], /id must be/],
    ['an empty id', [{ id: '', value: VALUE }], /id must be/],
    [
      'a repeated id',
      [
        { id: 'a', value: VALUE },
        { id: 'a', value: VALUE },
      ],
      /repeats/,
    ],
    ['an unknown environment', [{ id: 'a', value: VALUE, environment: 'Prod' }], /environment/],
    ['a value that is no string', [{ id: 'a', value: 42 }], /must be a string/],
    ['no array', { id: 'a', value: VALUE }, /array/],
  ])('refuses %s with a TypeError that never repeats the value', (_, option, message) => {
    expect(() => resolveEmbedSecrets(option as never)).toThrow(message);
    try {
      resolveEmbedSecrets(option as never);
    } catch (error) {
      expect((error as Error).message).not.toContain(VALUE);
      expect(error).toBeInstanceOf(TypeError);
    }
  });

  it('generate a secret per environment for generate_jwt without key_id, and otherwise use the first configured one', () => {
    expect(keyring.defaultFor('Customer').id).toBe('key-1');
    expect(keyring.defaultFor('Testing').id).toBe('key-t');
    const bare = new EmbedKeyring([]);
    expect(bare.defaultFor('Customer')).toMatchObject({ id: 'emulator-generated-customer', environment: 'Customer' });
    expect(bare.get('emulator-generated-testing')?.key).toHaveLength(32);
  });
});

describe('readEmbedToken', () => {
  it('reads a token it encrypted: dir + A256GCM with the kid in the protected header, the claims exactly', async () => {
    const jwt = await encryptEmbedToken(secret, claims);
    expect(decodeProtectedHeader(jwt)).toEqual({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' });
    expect(jwt.split('.')[1]).toBe('');
    await expect(readEmbedToken(jwt, keyring, NOW)).resolves.toEqual({ ok: true, claims, secret });
  });

  it('reads a token another library made the way the vendor documents (a fractional exp, rbc, des, extra claims)', async () => {
    const jwt = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ cst: 'acme', dsh: 'sales-overview', exp: exp + 0.25, rbc: ['flt', 'srt'], des: true, iat: 1 })),
    )
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' })
      .encrypt(new TextEncoder().encode(VALUE));
    await expect(readEmbedToken(jwt, keyring, NOW)).resolves.toMatchObject({
      ok: true,
      claims: { cst: 'acme', exp: exp + 0.25, rbc: ['flt', 'srt'], des: true },
    });
  });

  it('says expired (with the claims) once exp has passed, and only then', async () => {
    const jwt = await encryptEmbedToken(secret, claims);
    await expect(readEmbedToken(jwt, keyring, exp * 1000 - 1)).resolves.toMatchObject({ ok: true });
    await expect(readEmbedToken(jwt, keyring, exp * 1000)).resolves.toEqual({ ok: false, expired: true, message: 'the embed token has expired', claims });
  });

  const encryptWith = (header: Record<string, unknown>, payload: unknown, key = new TextEncoder().encode(VALUE)) =>
    new CompactEncrypt(new TextEncoder().encode(typeof payload === 'string' ? payload : JSON.stringify(payload)))
      .setProtectedHeader(header as never)
      .encrypt(key);

  it.each([
    ['an unknown kid', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'other' }, claims), /kid names no embed secret/],
    ['no kid', () => encryptWith({ alg: 'dir', enc: 'A256GCM' }, claims), /kid names no embed secret/],
    ['another content encryption', () => encryptWith({ alg: 'dir', enc: 'A128GCM', kid: 'key-1' }, claims, new Uint8Array(16)), /dir and A256GCM/],
    ['key wrapping instead of dir', () => encryptWith({ alg: 'A256KW', enc: 'A256GCM', kid: 'key-1' }, claims), /dir and A256GCM/],
    [
      'another key under the right kid',
      () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, claims, new TextEncoder().encode('z'.repeat(32))),
      /does not decrypt/,
    ],
    ['a payload that is no JSON object', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, '[1,2]'), /not a JSON object/],
    ['no cst', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { dsh: 'x', exp }), /cst/],
    ['a numeric dsh', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { cst: 'acme', dsh: 7, exp }), /dsh/],
    ['no exp', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { cst: 'acme', dsh: 'x' }), /no exp/],
    [
      'an iss without the trailing slash',
      () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { ...claims, iss: 'http://localhost:5174' }),
      /trailing/,
    ],
    ['an iss with a path', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { ...claims, iss: 'http://localhost:5174/app/' }), /trailing/],
    ['an unknown rbc feature', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { ...claims, rbc: ['delete'] }), /rbc/],
    ['a des that is no boolean', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { ...claims, des: 'yes' }), /des/],
    ['an nbf in the future', () => encryptWith({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' }, { ...claims, nbf: exp }), /nbf/],
  ])('refuses %s', async (_, make, message) => {
    const result = await readEmbedToken(await make(), keyring, NOW);
    expect(result).toMatchObject({ ok: false, expired: false });
    expect(!result.ok && result.message).toMatch(message);
  });

  it.each([
    [
      'a tampered ciphertext',
      (jwt: string) => jwt.replace(/\.([\w-])([\w-]*)\.([\w-]+)$/, (_, c: string, rest: string, tag: string) => `.${c === 'A' ? 'B' : 'A'}${rest}.${tag}`),
    ],
    [
      'a tampered header (authenticated data)',
      (jwt: string) => `${Buffer.from(JSON.stringify({ alg: 'dir', enc: 'A256GCM', kid: 'key-1', x: 1 })).toString('base64url')}${jwt.slice(jwt.indexOf('.'))}`,
    ],
    ['a cut tag', (jwt: string) => jwt.slice(0, -4)],
    ['no JWE at all', () => 'sales-overview'],
    ['a JWS', () => 'eyJhbGciOiJIUzI1NiJ9.eyJjc3QiOiJhY21lIn0.c2ln'],
    ['4 KiB of dots and letters', () => `${'a'.repeat(4096)}.b.c.d.e`],
  ])('refuses %s without throwing', async (_, tamper) => {
    const jwt = tamper(await encryptEmbedToken(secret, claims));
    await expect(readEmbedToken(jwt, keyring, NOW)).resolves.toMatchObject({ ok: false, expired: false });
  });

  it('never says what the key is', async () => {
    const jwt = await new EncryptJWT({ cst: 'acme' })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' })
      .encrypt(new TextEncoder().encode('z'.repeat(32)));
    const result = await readEmbedToken(jwt, keyring, NOW);
    expect(JSON.stringify(result)).not.toContain(VALUE);
  });
});

describe('EmbedTokenRegistry', () => {
  it('remembers accepted tokens for a synchronous look-up, and revokes only those', async () => {
    let now = NOW;
    const registry = new EmbedTokenRegistry(keyring, () => now);
    const jwt = await encryptEmbedToken(secret, claims);
    expect(registry.known(jwt)).toBeUndefined();
    expect(registry.revoke(jwt)).toBe(false);
    await expect(registry.check(jwt)).resolves.toMatchObject({ ok: true });
    expect(registry.known(jwt)).toEqual({ claims, secret });
    expect(registry.revoke(jwt)).toBe(true);
    await expect(registry.check(jwt)).resolves.toEqual({ ok: false, expired: true, message: 'the embed token was revoked', claims });
    expect(registry.known(jwt)).toBeUndefined();
    const other = await encryptEmbedToken(secret, { ...claims, cst: 'globex' });
    await registry.check(other);
    now = exp * 1000;
    expect(registry.known(other)).toBeUndefined();
    await expect(registry.check(other)).resolves.toMatchObject({ ok: false, expired: true });
    registry.reset();
    await expect(registry.check(jwt)).resolves.toMatchObject({ ok: false, expired: true, message: 'the embed token has expired' });
  });
});
