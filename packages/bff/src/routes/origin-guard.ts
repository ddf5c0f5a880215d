import type { Context, MiddlewareHandler } from 'hono';
import { BffError } from '../errors/bff-error.js';
import { respond } from './respond.js';
import { requestHeader } from '../http/request-header.js';

const ownOrigin = (c: Context): string => {
  const url = c.req.url;
  const end = url.indexOf('/', url.indexOf('//') + 2);
  return end === -1 ? url : url.slice(0, end);
};

/**
 * Refuses browser requests from origins other than the BFF's own and `allowedOrigins` (403),
 * and answers CORS for the allowed ones (credentials included, since sessions may be
 * cookies). Requests without `Origin` come from non-browser callers, which hold their own
 * session and are no CSRF vector, so they pass.
 *
 * Behind a TLS-terminating proxy the request URL may say `http:` while browsers say `https:`:
 * list the public origin in `allowedOrigins` then.
 */
export function originGuard(allowedOrigins: readonly string[]): MiddlewareHandler {
  const allowed = new Set(allowedOrigins);
  return async function originGuard(c, next) {
    const origin = requestHeader(c, 'origin');
    if (origin === undefined) return next();
    const crossOrigin = allowed.has(origin) && origin !== ownOrigin(c);
    if (!crossOrigin && origin !== ownOrigin(c)) {
      throw new BffError('forbidden', `origin ${origin.slice(0, 200)} is not allowed`);
    }
    if (!crossOrigin) return next();
    c.set('embedCorsOrigin', origin);
    if (c.req.method === 'OPTIONS') {
      return respond(c, 204, null, undefined, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type, authorization, x-request-id',
        'access-control-max-age': '600',
      });
    }
    return next();
  };
}
