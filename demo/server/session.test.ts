import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { findCustomer } from '../shared/customers.js';
import { SESSION_AUDIENCE, SESSION_ISSUER, signSession, verifySession } from './session.js';

const secret = 'a'.repeat(32);
const acme = findCustomer('acme')!;

describe('demo sessions', () => {
  it('signs a session the verifier accepts, with the claims the BFF reads', async () => {
    const jwt = await signSession(acme, { secret, ttlSeconds: 60 });
    expect(await verifySession(jwt, secret)).toBe('acme');
    const payload = JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(payload).toMatchObject({ org_id: 'acme', org_name: 'Acme Corp', embed_properties: acme.properties, iss: SESSION_ISSUER, aud: SESSION_AUDIENCE });
    expect((payload.exp as number) - (payload.iat as number)).toBe(60);
  });

  it.each([
    ['missing', async () => undefined],
    ['garbage', async () => 'not.a.jwt'],
    ['another secret', () => signSession(acme, { secret: 'b'.repeat(32), ttlSeconds: 60 })],
    ['alg none', async () => new UnsecuredJWT({ org_id: 'acme' }).setIssuer(SESSION_ISSUER).setAudience(SESSION_AUDIENCE).encode()],
    [
      'expired',
      () =>
        new SignJWT({ org_id: 'acme' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(SESSION_ISSUER)
          .setAudience(SESSION_AUDIENCE)
          .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
          .sign(new TextEncoder().encode(secret)),
    ],
    [
      'another audience',
      () =>
        new SignJWT({ org_id: 'acme' })
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(SESSION_ISSUER)
          .setAudience('someone-else')
          .setExpirationTime('1m')
          .sign(new TextEncoder().encode(secret)),
    ],
  ])('refuses a %s session', async (_name, make) => {
    expect(await verifySession(await make(), secret)).toBeUndefined();
  });
});
