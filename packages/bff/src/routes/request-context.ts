import type { MiddlewareHandler } from 'hono';
import type { BffLogger, LogFields } from '../observability/logger.js';
import { requestHeader } from './request-header.js';

declare module 'hono' {
  interface ContextVariableMap {
    /** The request id of the BFF's log lines and `X-Request-Id` response header. */
    embedRequestId: string;
    /** The BFF error code a failed request was answered with. */
    embedErrorCode: string;
    /** Set for an allowed cross-origin caller: its origin, echoed in the CORS headers. */
    embedCorsOrigin: string;
  }
}

const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * Per request: a request id (the caller's `X-Request-Id` when it is short and plain, else a new
 * UUID) and one log line. Responses get `no-store` (and errors the id) from `respond()`, which
 * builds them all: touching `c.res.headers` here would take the Node adapter off its fast path.
 */
export function requestContext(logger: BffLogger): MiddlewareHandler {
  return async function requestContext(c, next) {
    const started = performance.now();
    const given = requestHeader(c, 'x-request-id');
    const requestId = given !== undefined && SANE_REQUEST_ID.test(given) ? given : crypto.randomUUID();
    c.set('embedRequestId', requestId);
    await next();
    const fields: LogFields = {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status: c.res.status,
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    };
    const code = c.get('embedErrorCode');
    if (code !== undefined) fields.code = code;
    logger.info('request', fields);
  };
}
