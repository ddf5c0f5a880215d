import type { IncomingMessage, ServerResponse } from 'node:http';
import { SignJWT } from 'jose';
import type { DevCustomer } from './dev-customers.js';

/** Where the dev-only sign-in lives in the dev server. */
export const DEV_SIGN_IN_PATH = '/__embedded-dashboard';
const SESSION_HOURS = 8;

export interface DevSignInOptions {
  customers: readonly DevCustomer[];
  /** HS256 secret the BFF verifies sessions with. */
  secret: string;
  cookie: string;
}

/** Only a path on this server: never `//other.host` or a URL. */
const safeNext = (next: string | null) => (next && /^\/(?![/\\])/.test(next) ? next : '/');

/**
 * `GET /__embedded-dashboard/login?customer=<id>[&next=/path]` signs in as that sample customer
 * (a session JWT in an HttpOnly cookie, as an integrator's own login would set) and redirects;
 * `GET /__embedded-dashboard/logout` signs out. Returns `false` for every other request.
 */
export function createDevSignIn(options: DevSignInOptions) {
  const key = new TextEncoder().encode(options.secret);
  const known = options.customers.map((customer) => customer.id).join(', ');
  return async function devSignIn(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://dev.invalid');
    if (url.pathname !== `${DEV_SIGN_IN_PATH}/login` && url.pathname !== `${DEV_SIGN_IN_PATH}/logout`) return false;
    if (req.method !== 'GET') {
      res.writeHead(405, { allow: 'GET', 'content-type': 'text/plain; charset=utf-8' }).end('GET only\n');
      return true;
    }
    const next = safeNext(url.searchParams.get('next'));
    if (url.pathname.endsWith('/logout')) {
      res.writeHead(302, { location: next, 'set-cookie': `${options.cookie}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0`, 'cache-control': 'no-store' }).end();
      return true;
    }
    const customer = options.customers.find((c) => c.id === url.searchParams.get('customer'));
    if (!customer) {
      res.writeHead(400, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' }).end(`dev sign-in: ?customer= must be one of ${known}\n`);
      return true;
    }
    const session = await new SignJWT({ org_id: customer.id, org_name: customer.name, embed_properties: customer.properties })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(`dev-user@${customer.id}`)
      .setIssuedAt()
      .setExpirationTime(`${SESSION_HOURS}h`)
      .sign(key);
    res
      .writeHead(302, {
        location: next,
        'set-cookie': `${options.cookie}=${session}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_HOURS * 3600}`,
        'cache-control': 'no-store',
      })
      .end();
    return true;
  };
}
