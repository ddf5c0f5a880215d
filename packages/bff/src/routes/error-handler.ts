import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { BffErrorCode } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { describeError, type BffLogger } from '../observability/logger.js';
import type { RefusalLog } from '../observability/refusal-log.js';
import { NO_SESSION_COOKIE } from '../session/session-verifier.js';
import { requestIdOf } from './request-context.js';
import { respondError } from './respond.js';

const codeForStatus = (status: number): BffErrorCode =>
  status === 401
    ? 'unauthenticated'
    : status === 403
      ? 'forbidden'
      : status === 429
        ? 'rate_limited'
        : status >= 400 && status < 500
          ? 'bad_request'
          : 'internal';

/** Turns any error into the §4 error body; only `BffError` messages reach the browser. */
function toBffErrorResponse(error: unknown): BffError {
  if (error instanceof BffError) return error;
  if (error instanceof HTTPException) {
    const code = codeForStatus(error.status);
    return new BffError(code, code === 'internal' ? 'internal error' : 'request refused', { status: error.status, cause: error });
  }
  return new BffError('internal', 'internal error', { cause: error });
}

/**
 * A cookie session that did not arrive from a page of another origin: say why, rather than a bare
 * "no session cookie". The element passes the first 200 characters on in its `dashboard-error`
 * event, so all that matters is in them.
 */
const crossOriginCookieMissing = (error: BffError): BffError =>
  new BffError(
    'unauthenticated',
    `${error.message} from another origin (third-party cookies blocked, or no with-credentials): use a bearer session, see "Cross-site BFF" in the @embedded-dashboard/bff README`,
    { cause: error },
  );

/**
 * The BFF's one `onError`: logs server-side failures (redacted) and answers with JSON. A refusal
 * on purpose (the vendor budget, an open circuit, a rate limit) is no failure: `refusals` counts
 * it and writes its summary, and its request line goes to `debug`.
 */
export function bffErrorHandler(logger: BffLogger, refusals: RefusalLog): ErrorHandler {
  return function bffErrorHandler(error: unknown, c: Context) {
    let bffError = toBffErrorResponse(error);
    const corsOrigin = c.get('embedCorsOrigin');
    if (bffError.cause === NO_SESSION_COOKIE && corsOrigin !== undefined) bffError = crossOriginCookieMissing(bffError);
    c.set('embedErrorCode', bffError.code);
    if (bffError.refusal !== undefined) {
      c.set('embedRefusal', bffError.refusal);
      refusals.note(bffError.refusal);
    } else if (bffError.status >= 500) {
      logger.error('request failed', {
        requestId: requestIdOf(c),
        code: bffError.code,
        error: describeError(bffError.cause ?? error),
      });
    }
    return respondError(c, bffError);
  };
}
