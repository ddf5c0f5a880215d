import { createHmac, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors, jwtVerify, SignJWT } from 'jose';
import { startLoopbackServer } from '../../../../test/support/loopback-server.js';

/**
 * Superset's security API on a real socket (127.0.0.1, port 0), for fault tests: what a test
 * decides per route (refusals, 5xx, silence, wrong shapes) on top of the behaviour read off the
 * installed 6.1.0 sources: Flask-AppBuilder's login (JWT access token with `exp`), Flask-WTF's
 * CSRF (the raw value in the `session` cookie the csrf_token answer sets, the header's signed
 * token checked against it, a JSON 400 naming CSRF when they do not match, as the real one
 * answers; an expired access token 401, one that does not verify 422; on https a Referer
 * of the host, not modelled: this server is http) and `guest_token` (400 for an unknown
 * dashboard). The real server is what the integration tests run against (test/support/superset*).
 */
export interface HostileSuperset {
  url: string;
  /** Requests that reached it, by route name. */
  calls: { login: number; csrf: number; guest: number; other: number };
  /** Guest token request bodies, as received. */
  guestBodies: Record<string, unknown>[];
  /** Replaces a route's behaviour; `undefined` restores the modelled one. */
  behave(route: 'login' | 'csrf' | 'guest', behaviour: ((res: ServerResponse, req: IncomingMessage) => void) | undefined): void;
  /** Forgets every CSRF session (the session cookie's server-side value is gone): the next guest token request is a CSRF 400. */
  forgetSessions(): void;
  /** A new signing key for access tokens (a restart with another SECRET_KEY): every access token issued so far is a 422. */
  newAccessKey(): void;
  close(): Promise<void>;
}

export const SUPERSET_USER = 'embed-service';
export const SUPERSET_PASSWORD = 'LEAKCHECK-superset-password-41d8';
export const GUEST_SECRET = 'LEAKCHECK-guest-token-secret-0123456789abcdef';

export interface HostileSupersetOptions {
  /** Embedded dashboard UUIDs it knows. */
  dashboards: string[];
  /** The access token's lifetime (Flask-JWT-Extended's default 15 minutes). */
  accessTtlSeconds?: number;
  /** The guest token's lifetime (`GUEST_TOKEN_JWT_EXP_SECONDS`, 300). */
  guestTtlSeconds?: number;
  now?: () => number;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  void res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));

export async function startHostileSuperset(options: HostileSupersetOptions): Promise<HostileSuperset> {
  const now = options.now ?? Date.now;
  const key = new TextEncoder().encode(GUEST_SECRET);
  let accessKey = randomBytes(32);
  const calls = { login: 0, csrf: 0, guest: 0, other: 0 };
  const guestBodies: Record<string, unknown>[] = [];
  const overrides: Partial<Record<'login' | 'csrf' | 'guest', (res: ServerResponse, req: IncomingMessage) => void>> = {};
  let sessions = new Map<string, string>();
  const sign = (raw: string) => `${Buffer.from(JSON.stringify(raw)).toString('base64url')}.${createHmac('sha256', accessKey).update(raw).digest('base64url')}`;
  /** Flask-JWT-Extended: no or an expired token 401, one it cannot verify 422. */
  const bearer = async (req: IncomingMessage): Promise<200 | 401 | 422> => {
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return 401;
    try {
      await jwtVerify(token, accessKey, { currentDate: new Date(now()) });
      return 200;
    } catch (error) {
      return error instanceof errors.JWTExpired ? 401 : 422;
    }
  };
  const refuseBearer = (res: ServerResponse, status: 401 | 422) =>
    json(res, status, { msg: status === 401 ? 'Token has expired' : 'Signature verification failed' });
  const cookieSession = (req: IncomingMessage) => /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];

  const handle = async (req: IncomingMessage, res: ServerResponse, text: string) => {
    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/api/v1/security/login') {
      calls.login++;
      if (overrides.login) return overrides.login(res, req);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return json(res, 400, { message: 'Request payload is not JSON' });
      }
      if (body.username !== SUPERSET_USER || body.password !== SUPERSET_PASSWORD || body.provider !== 'db')
        return json(res, 401, { message: 'Not authorized' });
      const access_token = await new SignJWT({ fresh: true, type: 'access', sub: '1' })
        .setProtectedHeader({ alg: 'HS256' })
        .setIssuedAt(Math.floor(now() / 1000))
        .setExpirationTime(Math.floor(now() / 1000) + (options.accessTtlSeconds ?? 900))
        .sign(accessKey);
      return json(res, 200, { access_token });
    }
    if (req.method === 'GET' && path === '/api/v1/security/csrf_token/') {
      calls.csrf++;
      if (overrides.csrf) return overrides.csrf(res, req);
      const auth = await bearer(req);
      if (auth !== 200) return refuseBearer(res, auth);
      const id = randomBytes(12).toString('base64url');
      const raw = randomBytes(20).toString('hex');
      sessions.set(id, raw);
      return json(res, 200, { result: sign(raw) }, { 'set-cookie': `session=${id}; Expires=Wed, 01 Jan 2031 00:00:00 GMT; HttpOnly; Path=/; SameSite=Lax` });
    }
    if (req.method === 'POST' && path === '/api/v1/security/guest_token/') {
      calls.guest++;
      if (overrides.guest) return overrides.guest(res, req);
      const auth = await bearer(req);
      if (auth !== 200) return refuseBearer(res, auth);
      const raw = sessions.get(cookieSession(req) ?? '');
      const header = req.headers['x-csrftoken'];
      if (raw === undefined) return json(res, 400, { errors: [{ message: '400 Bad Request: The CSRF session token is missing.' }] });
      if (typeof header !== 'string' || header !== sign(raw))
        return json(res, 400, { errors: [{ message: '400 Bad Request: The CSRF tokens do not match.' }] });
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return json(res, 400, { message: 'Request is not JSON' });
      }
      guestBodies.push(body);
      const resources = body.resources as { type: string; id: string }[] | undefined;
      if (!Array.isArray(resources) || !Array.isArray(body.rls)) return json(res, 400, { message: { resources: ['Missing data for required field.'] } });
      if (resources.some((r) => !options.dashboards.includes(r.id))) return json(res, 400, { message: 'Embedded dashboard not found.' });
      const iat = Math.floor(now() / 1000);
      const token = await new SignJWT({ user: body.user, resources, rls_rules: body.rls, type: 'guest' })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setIssuedAt(iat)
        .setExpirationTime(iat + (options.guestTtlSeconds ?? 300))
        .setAudience('superset')
        .sign(key);
      return json(res, 200, { token });
    }
    calls.other++;
    return json(res, 404, { message: 'Not found' });
  };

  const server = await startLoopbackServer((req, res, body) => void handle(req, res, body.toString('utf8')));
  return {
    url: server.url,
    calls,
    guestBodies,
    behave(route, behaviour) {
      if (behaviour === undefined) delete overrides[route];
      else overrides[route] = behaviour;
    },
    forgetSessions() {
      sessions = new Map();
    },
    newAccessKey() {
      accessKey = randomBytes(32);
    },
    close: () => server.close(),
  };
}
