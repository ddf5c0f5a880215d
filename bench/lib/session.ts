import { SignJWT } from 'jose';

/** The BFF session settings the bench starts every BFF with. */
export const SESSION = {
  secret: 'bench-session-secret-0123456789abcdef0123456789abcdef',
  issuer: 'https://app.bench.test',
  audience: 'embedded-dashboard-bench',
  /** The browser origin the BFF allows; every benchmark request carries it. */
  origin: 'http://app.bench.test',
} as const;

/**
 * A session JWT for customer `groupId`, signed as the integrator's login would (HS256, jose),
 * with the BFF's default claim names.
 */
export function signSession(groupId: string): Promise<string> {
  return new SignJWT({ org_id: groupId, org_name: `Bench ${groupId}`, embed_properties: { region: 'EU', plan: 'pro' } })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(`user-of-${groupId}`)
    .setIssuer(SESSION.issuer)
    .setAudience(SESSION.audience)
    .setIssuedAt()
    .setExpirationTime('2h')
    .sign(new TextEncoder().encode(SESSION.secret));
}

/** Headers of a browser's token request: JSON, from the allowed origin, with the session. */
export function tokenRequestHeaders(session: string): Record<string, string> {
  return { 'content-type': 'application/json', origin: SESSION.origin, authorization: `Bearer ${session}` };
}
