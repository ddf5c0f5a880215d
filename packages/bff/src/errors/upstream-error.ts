import { UserGroupApiErrorCode } from '@embedded-dashboard/client';
import { UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS } from '@embedded-dashboard/protocol';
import { BffError } from './bff-error.js';

interface UpstreamErrorLike {
  code: UserGroupApiErrorCode;
  status: number | undefined;
  retryable: boolean;
  retryAfterMs: number | undefined;
}

/** The codes of the client's `UserGroupApiError`, from the client itself. */
const UPSTREAM_CODES: ReadonlySet<string> = new Set<string>(Object.values(UserGroupApiErrorCode));

/**
 * Recognises the client's typed error by shape rather than `instanceof`, so a client loaded
 * twice (sources in tests, dist in production) or an integrator's own upstream still maps.
 */
function isUpstreamError(error: unknown): error is UpstreamErrorLike & Error {
  if (!(error instanceof Error)) return false;
  const e = error as Error & Partial<UpstreamErrorLike>;
  return typeof e.code === 'string' && UPSTREAM_CODES.has(e.code) && typeof e.retryable === 'boolean';
}

/**
 * Whether a failed rotate may still have happened upstream, so the current token must be
 * re-read: no answer (network, timeouts), an unreadable answer, or a 5xx that a proxy may have
 * sent after the vendor acted. An explicit refusal (`success: 0`, 4xx, 429) is not ambiguous.
 */
export function isAmbiguousFailure(error: unknown): boolean {
  if (!isUpstreamError(error)) return false;
  switch (error.code) {
    case 'network':
    case 'timeout':
    case 'deadline_exceeded':
    case 'aborted':
    case 'malformed_response':
      return true;
    case 'http_status':
      return error.status === undefined || error.status >= 500;
    default:
      return false;
  }
}

/**
 * Whether the vendor refused a call outright for what was sent (`success: 0`, a 4xx other than
 * 429 rate limiting), as it refuses to rotate a token that is no longer current.
 */
export function isRefusal(error: unknown): boolean {
  if (!isUpstreamError(error)) return false;
  return (
    error.code === 'api_failure' ||
    (error.code === 'http_status' && error.status !== undefined && error.status >= 400 && error.status < 500 && error.status !== 429)
  );
}

/** `Retry-After` for a vendor that could not be reached or said 503 without one of its own. */
const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/** The vendor's own `Retry-After` in whole seconds (at least 1), else the default above. */
const retryAfterSeconds = (retryAfterMs: number | undefined) => Math.max(UNAVAILABLE_RETRY_AFTER_SECONDS, Math.ceil((retryAfterMs ?? 0) / 1000));

/**
 * Maps a vendor failure to the browser-facing error of ARCHITECTURE §4. Messages say what
 * failed, never how the vendor was called (no URL, no token).
 */
export function toBffError(error: unknown, operation: string): BffError {
  if (error instanceof BffError) return error;
  if (!isUpstreamError(error)) {
    return new BffError('internal', 'internal error', { cause: error });
  }
  const what = `the dashboard vendor's ${operation}`;
  switch (error.code) {
    case 'timeout':
    case 'deadline_exceeded':
      return new BffError('upstream_timeout', `${what} did not answer in time`, { cause: error, retryAfterSeconds: UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS });
    case 'network':
    case 'aborted':
      // A dropped connection is transient: the browser is told when to come back, as for a timeout.
      return new BffError('upstream_unavailable', `${what} could not be reached`, { cause: error, retryAfterSeconds: UNAVAILABLE_RETRY_AFTER_SECONDS });
    case 'rate_limited':
      return new BffError('rate_limited', `${what} is rate limiting this service; retry later`, {
        cause: error,
        retryAfterSeconds: retryAfterSeconds(error.retryAfterMs),
      });
    case 'http_status':
      if (error.status === 503) {
        return new BffError('upstream_unavailable', `${what} is unavailable`, { cause: error, retryAfterSeconds: retryAfterSeconds(error.retryAfterMs) });
      }
      return new BffError('upstream_error', `${what} failed with HTTP ${error.status ?? 'error'}`, {
        cause: error,
        retryable: error.status === undefined || error.status >= 500,
      });
    case 'api_failure':
      return new BffError('upstream_error', `${what} reported a failure`, { cause: error });
    case 'malformed_response':
      return new BffError('upstream_error', `${what} sent an unexpected response`, { cause: error });
  }
}
