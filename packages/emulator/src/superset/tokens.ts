import { jwtVerify, SignJWT, errors as joseErrors } from 'jose';

/**
 * The tokens of the Superset mode, as Superset 6.1.0 makes them: the service account's access and
 * refresh tokens (Flask-JWT-Extended: HS256 with SECRET_KEY, `type` access/refresh, `sub` the user
 * id as text, `fresh`, `jti`, `nbf`, `csrf`), the CSRF token bound to the `session` cookie
 * (Flask-WTF: the raw token in the signed session, a signed copy in the answer), and guest tokens
 * (superset/security/manager.py `create_guest_access_token`: HS256, `iat`/`exp` as float seconds).
 */

const encoder = new TextEncoder();
const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

async function hmac(key: Uint8Array, text: string): Promise<string> {
  const imported = await crypto.subtle.importKey('raw', key as BufferSource, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return b64url(new Uint8Array(await crypto.subtle.sign('HMAC', imported, encoder.encode(text))));
}

const timingSafeEqual = (a: string, b: string) => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
};

/** Flask-JWT-Extended's answers for a bad bearer token: status and `msg`. */
export type BearerProblem = { status: 401 | 422; msg: string };

export async function signUserToken(
  key: Uint8Array,
  userId: number,
  type: 'access' | 'refresh',
  fresh: boolean,
  nowMs: number,
  lifetimeSeconds: number,
): Promise<string> {
  const iat = Math.floor(nowMs / 1000);
  return new SignJWT({ fresh, iat, jti: crypto.randomUUID(), type, sub: String(userId), nbf: iat, csrf: crypto.randomUUID(), exp: iat + lifetimeSeconds })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .sign(key);
}

/** The user id of a valid bearer token of `type`, or the problem Flask-JWT-Extended answers with. */
export async function verifyUserToken(
  key: Uint8Array,
  authorization: string | undefined,
  type: 'access' | 'refresh',
  nowMs: number,
): Promise<{ ok: true; userId: number } | ({ ok: false } & BearerProblem)> {
  if (authorization === undefined) return { ok: false, status: 401, msg: 'Missing Authorization Header' };
  const [scheme, token, extra] = authorization.split(' ');
  if (scheme !== 'Bearer' || token === undefined || extra !== undefined)
    return { ok: false, status: 422, msg: "Bad Authorization header. Expected 'Authorization: Bearer <JWT>'" };
  if (token.split('.').length !== 3) return { ok: false, status: 422, msg: 'Not enough segments' };
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: ['HS256'], currentDate: new Date(nowMs) });
    if (payload.type !== type)
      return { ok: false, status: 422, msg: type === 'refresh' ? 'Only refresh tokens are allowed' : 'Only non-refresh tokens are allowed' };
    const userId = Number(payload.sub);
    if (!Number.isInteger(userId)) return { ok: false, status: 422, msg: 'Invalid token' };
    return { ok: true, userId };
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) return { ok: false, status: 401, msg: 'Token has expired' };
    if (error instanceof joseErrors.JWSSignatureVerificationFailed) return { ok: false, status: 422, msg: 'Signature verification failed' };
    return { ok: false, status: 422, msg: 'Invalid token' };
  }
}

/** A fresh CSRF token: the `session` cookie's value that holds it, and the signed copy the answer carries. */
export async function issueCsrf(key: Uint8Array, nowMs: number): Promise<{ cookie: string; token: string }> {
  const raw = Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString('hex');
  const session = b64url(encoder.encode(JSON.stringify({ csrf_token: raw })));
  const stamp = b64url(encoder.encode(String(Math.floor(nowMs / 1000))));
  const payload = `${b64url(encoder.encode(JSON.stringify(raw)))}.${stamp}`;
  return { cookie: `${session}.${await hmac(key, `session:${session}`)}`, token: `${payload}.${await hmac(key, `csrf:${payload}`)}` };
}

/** Flask-WTF's check of `X-CSRFToken` against the `session` cookie: `undefined` when it passes, else its sentence. */
export async function checkCsrf(key: Uint8Array, header: string | undefined, sessionCookie: string | undefined): Promise<string | undefined> {
  if (!header) return 'The CSRF token is missing.';
  let raw: unknown;
  if (sessionCookie) {
    const dot = sessionCookie.lastIndexOf('.');
    const session = sessionCookie.slice(0, dot);
    if (dot > 0 && timingSafeEqual(sessionCookie.slice(dot + 1), await hmac(key, `session:${session}`))) {
      try {
        raw = (JSON.parse(Buffer.from(session, 'base64url').toString('utf8')) as { csrf_token?: unknown }).csrf_token;
      } catch {
        raw = undefined;
      }
    }
  }
  if (typeof raw !== 'string') return 'The CSRF session token is missing.';
  const parts = header.split('.');
  if (parts.length !== 3) return 'The CSRF token is invalid.';
  const payload = `${parts[0]}.${parts[1]}`;
  if (!timingSafeEqual(parts[2]!, await hmac(key, `csrf:${payload}`))) return 'The CSRF token is invalid.';
  let signedRaw: unknown;
  try {
    signedRaw = JSON.parse(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  } catch {
    return 'The CSRF token is invalid.';
  }
  return signedRaw === raw ? undefined : 'The CSRF tokens do not match.';
}

export interface GuestClaims {
  user: Record<string, string>;
  resources: { type: 'dashboard'; id: string }[];
  rls_rules: { clause: string; dataset?: number }[];
  iat: number;
  exp: number;
  aud: string;
  type: 'guest';
}

export const signGuestToken = (secret: Uint8Array, claims: GuestClaims): Promise<string> =>
  new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(secret);

/**
 * A guest token's claims when Superset would take it (signature, `exp`, `aud`, and `user`,
 * `resources`, `rls_rules` present, `type: "guest"`), else `undefined`: the request then has no
 * user at all, which Superset answers 401 "Missing Authorization Header".
 */
export async function verifyGuestToken(secret: Uint8Array, audience: string, token: string | undefined, nowMs: number): Promise<GuestClaims | undefined> {
  if (!token || token.length > 16_384) return undefined;
  try {
    const { payload } = await jwtVerify(token, secret, { algorithms: ['HS256'], audience, currentDate: new Date(nowMs) });
    if (payload.user == null || payload.resources == null || payload.rls_rules == null || payload.type !== 'guest') return undefined;
    if (!Array.isArray(payload.resources) || !Array.isArray(payload.rls_rules) || typeof payload.user !== 'object') return undefined;
    return payload as unknown as GuestClaims;
  } catch {
    return undefined;
  }
}
