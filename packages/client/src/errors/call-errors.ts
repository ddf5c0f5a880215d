import { UserGroupAbortedError, UserGroupApiError, UserGroupNetworkError } from './errors.js';
import { redact, sanitizeCause } from './redact.js';

/** The caller aborted the call: `aborted`, with the abort reason's secrets redacted. */
export function abortedError(signal: AbortSignal, secrets: readonly string[]): UserGroupAbortedError {
  return new UserGroupAbortedError('call aborted by the caller', { cause: sanitizeCause(signal.reason, secrets) });
}

/** Whatever a transport threw, as a typed error with no secret in its message or cause chain. */
export function toApiError(caught: unknown, secrets: readonly string[]): UserGroupApiError {
  if (caught instanceof UserGroupApiError) {
    const cause = sanitizeCause(caught.cause, secrets);
    if (cause === caught.cause && redact(caught.message, secrets) === caught.message) return caught;
    return new UserGroupApiError(caught.code, redact(caught.message, secrets), {
      cause,
      status: caught.status,
      retryable: caught.retryable,
      retryAfterMs: caught.retryAfterMs,
    });
  }
  const message = caught instanceof Error ? caught.message : 'transport failed';
  return new UserGroupNetworkError(`request failed: ${redact(message, secrets)}`, { cause: sanitizeCause(caught, secrets) });
}
