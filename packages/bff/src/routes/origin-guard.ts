import type { Context, MiddlewareHandler } from 'hono';
import { BffError } from '../errors/bff-error.js';
import { forwardedOrigin } from '../http/forwarded.js';
import { requestHeader } from '../http/request-header.js';
import type { OriginRule } from '../settings.js';
import { respond } from './respond.js';

/** Where the BFF README says what a deployment behind a proxy needs: every refusal that may be a proxy's doing points there. */
export const BEHIND_A_PROXY = 'see "Behind a proxy" in the @embedded-dashboard/bff README';

/** A serialized origin as browsers send it: lower-case scheme and host, no default port, no path. */
const SERIALIZED_ORIGIN = /^https?:\/\/(?:\[[0-9a-f:.]{2,45}\]|[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)(?::[1-9]\d{0,4})?$/;
/** Browsers leave the scheme's default port out: an origin naming it is not a browser's. */
const DEFAULT_PORT = /^(?:http:\/\/.*:80|https:\/\/.*:443)$/;

const urlOrigin = (c: Context): string => {
  const url = c.req.url;
  const end = url.indexOf('/', url.indexOf('//') + 2);
  return end === -1 ? url : url.slice(0, end);
};

const show = (origin: string) => JSON.stringify(origin.length > 200 ? `${origin.slice(0, 200)}…` : origin);

/**
 * The origin rule (ARCHITECTURE §4, "Origin"). A request with an `Origin` is a browser's; it is
 * served when the browser itself says it is same-origin (`Sec-Fetch-Site: same-origin`, which no
 * page script can forge) and nothing the operator stated contradicts it, when its origin is the
 * BFF's own (the operator's `publicOrigin`, else a trusted proxy's `Forwarded` headers, else the
 * request URL's), or when it is in `allowedOrigins` (answered with CORS, credentials included).
 * Anything else is 403. Requests without `Origin` come from non-browser callers, which hold their
 * own session and are no CSRF vector, so they pass.
 *
 * An accepted browser origin is `c.get('embedPageOrigin')` for later handlers: the page the
 * request came from, as the browser stated it (`undefined` without `Origin`).
 */
export function originGuard(rule: OriginRule): MiddlewareHandler {
  const allowed = new Set(rule.allowedOrigins);
  /** The BFF's public origin when the operator or a trusted proxy states it; else `undefined`. */
  const statedOrigin = (c: Context): string | undefined =>
    rule.publicOrigin ??
    (rule.trustProxy
      ? forwardedOrigin(
          {
            forwarded: requestHeader(c, 'forwarded'),
            xForwardedProto: requestHeader(c, 'x-forwarded-proto'),
            xForwardedHost: requestHeader(c, 'x-forwarded-host'),
          },
          c.req.url,
        )
      : undefined);

  return async function originGuard(c, next) {
    const origin = requestHeader(c, 'origin');
    if (origin === undefined) return next();
    if (!SERIALIZED_ORIGIN.test(origin) || DEFAULT_PORT.test(origin)) throw new BffError('forbidden', `origin ${show(origin)} is not allowed`);
    const site = requestHeader(c, 'sec-fetch-site');
    const stated = statedOrigin(c);
    let crossOrigin: boolean;
    if (site === 'same-origin') {
      // The browser vouches for it; only what the operator (or the trusted proxy) stated can overrule it.
      if (stated !== undefined && origin !== stated && !allowed.has(origin)) {
        throw new BffError(
          'forbidden',
          `origin ${show(origin)} is not allowed: the browser says it is this BFF's own, but its public origin is ${show(stated)} (${BEHIND_A_PROXY})`,
        );
      }
      crossOrigin = false;
    } else if (site === 'same-site' || site === 'cross-site') {
      if (!allowed.has(origin))
        throw new BffError(
          'forbidden',
          `origin ${show(origin)} is not allowed: the browser says the request is ${site} and the origin is not in allowedOrigins`,
        );
      crossOrigin = true;
    } else if (origin === (stated ?? urlOrigin(c))) {
      crossOrigin = false;
    } else if (allowed.has(origin)) {
      crossOrigin = true;
    } else {
      throw new BffError(
        'forbidden',
        `origin ${show(origin)} is not allowed: it is neither this BFF's origin as the request reached it nor in allowedOrigins (${BEHIND_A_PROXY})`,
      );
    }
    c.set('embedPageOrigin', origin);
    if (!crossOrigin) return next();
    c.set('embedCorsOrigin', origin);
    if (c.req.method === 'OPTIONS') {
      return respond(c, 204, null, undefined, {
        'access-control-allow-methods': 'POST',
        'access-control-allow-headers': 'content-type, authorization, x-request-id, traceparent, tracestate',
        'access-control-max-age': '600',
      });
    }
    return next();
  };
}
