import { SignJWT, jwtVerify } from 'jose';
import type { DemoCustomer } from '../shared/customers.js';

/** The cookie that carries the session JWT; the BFF reads the same cookie. */
export const SESSION_COOKIE = 'northwind_session';
export const SESSION_ISSUER = 'northwind-demo';
export const SESSION_AUDIENCE = 'northwind-embed';

/** The claims the demo puts in a session, named as the BFF expects them by default. */
export interface DemoSessionClaims {
  sub: string;
  org_id: string;
  org_name: string;
  embed_properties: Record<string, string | number>;
}

export interface SessionKeys {
  secret: string;
  ttlSeconds: number;
}

const key = (secret: string) => new TextEncoder().encode(secret);

/** Signs a short-lived HS256 session for a user of `customer`. */
export function signSession(customer: DemoCustomer, keys: SessionKeys): Promise<string> {
  const claims: Omit<DemoSessionClaims, 'sub'> = {
    org_id: customer.id,
    org_name: customer.name,
    embed_properties: customer.properties,
  };
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(customer.user.email)
    .setIssuer(SESSION_ISSUER)
    .setAudience(SESSION_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${keys.ttlSeconds}s`)
    .sign(key(keys.secret));
}

/**
 * Verifies a session JWT: signature (HS256 only), issuer, audience and expiry. Returns the
 * organisation id it names, or `undefined` for anything that does not verify.
 */
export async function verifySession(jwt: string | undefined, secret: string): Promise<string | undefined> {
  if (!jwt) return undefined;
  try {
    const { payload } = await jwtVerify(jwt, key(secret), {
      algorithms: ['HS256'],
      issuer: SESSION_ISSUER,
      audience: SESSION_AUDIENCE,
    });
    return typeof payload.org_id === 'string' ? payload.org_id : undefined;
  } catch {
    return undefined;
  }
}
