import { SignJWT, jwtVerify, type JWTPayload } from 'jose';
import { cookies } from 'next/headers';

/** The app's own users; each belongs to a customer organisation (a user group at the vendor). */
export const USERS: Record<string, { password: string; org: { id: string; name: string; properties: Record<string, string> } }> = {
  'wile@acme.example': { password: 'acme-demo', org: { id: 'acme', name: 'Acme Corp', properties: { region: 'EMEA', plan: 'Enterprise' } } },
  'hank@globex.example': { password: 'globex-demo', org: { id: 'globex', name: 'Globex', properties: { region: 'Americas', plan: 'Growth' } } },
};

export const SESSION_COOKIE = 'session';

export function env(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
}

const key = () => new TextEncoder().encode(env('SESSION_SECRET'));

/** The session JWT the login sets: the claims the BFF reads (`org_id`, `org_name`, `embed_properties`). */
export function signSession(email: string, org: (typeof USERS)[string]['org']): Promise<string> {
  return new SignJWT({ org_id: org.id, org_name: org.name, embed_properties: org.properties })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(email)
    .setExpirationTime('1h')
    .sign(key());
}

/** The signed-in user's session, or `undefined`. */
export async function currentSession(): Promise<(JWTPayload & { org_name?: string; embed_properties?: Record<string, string> }) | undefined> {
  const token = (await cookies()).get(SESSION_COOKIE)?.value;
  if (!token) return undefined;
  try {
    return (await jwtVerify(token, key(), { algorithms: ['HS256'] })).payload;
  } catch {
    return undefined;
  }
}
