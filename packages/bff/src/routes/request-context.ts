import type { Context, MiddlewareHandler } from 'hono';
import type { BffLogger, LogFields } from '../observability/logger.js';
import type { RefusalReason } from '../observability/refusal-log.js';
import { requestHeader } from '../http/request-header.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request id of the BFF's log lines and `X-Request-Id` response header. */
    embedRequestId: string;
    /** The BFF error code a failed request was answered with. */
    embedErrorCode: string;
    /** Set when the request was refused on purpose (counted and summarised, not logged as a failure). */
    embedRefusal: RefusalReason;
    /** Set for an allowed cross-origin caller: its origin, echoed in the CORS headers. */
    embedCorsOrigin: string;
    /**
     * The page the request came from, as the browser stated it (its `Origin`), once the origin
     * guard accepted it: the BFF's own public origin or one of `allowedOrigins`. `undefined` for
     * a request without `Origin` (a non-browser caller, or a server rendering the first token).
     * Later handlers read it here rather than deriving the origin again (ARCHITECTURE §4).
     */
    embedPageOrigin: string | undefined;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The request's id: the caller's `X-Request-Id` when it is short and plain, else a UUID made on
 * first use (a successful request that is not logged never needs one).
 */
export function requestIdOf(c: Context): string {
  let id = c.get('embedRequestId');
  if (id === undefined) {
    id = crypto.randomUUID();
    c.set('embedRequestId', id);
  }
  return id;
}

/**
 * Per request: the request id and one log line, at `info` for errors (status 400 and up) and at
 * `debug` for the rest, which at thousands of cached token requests a second are noise, and for
 * refusals on purpose (`RefusalLog` summarises those at `info`). Every
 * line carries the request id. Responses get `no-store` (and errors the id) from `respond()`,
 * which builds them all: touching `c.res.headers` here would take the Node adapter off its fast path.
 */
export function requestContext(logger: BffLogger): MiddlewareHandler {
  return async function requestContext(c, next) {
    const started = performance.now();
    const given = requestHeader(c, 'x-request-id');
    if (given !== undefined && SANE_REQUEST_ID.test(given)) c.set('embedRequestId', given);
    await next();
    const status = c.res.status;
    const quiet = status < 400 || c.get('embedRefusal') !== undefined;
    if (quiet && logger.debug === undefined) return;
    const fields: LogFields = {
      requestId: requestIdOf(c),
      method: c.req.method,
      path: c.req.path,
      status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const code = c.get('embedErrorCode');
    if (code !== undefined) fields.code = code;
    if (quiet) logger.debug!('request', fields);
    else logger.info('request', fields);
  };
}
