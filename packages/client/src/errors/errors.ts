/**
 * Every way a vendor call can fail, as one error hierarchy (jose style): a base class with a
 * stable `code`, the HTTP status when there was one, and whether trying again may help.
 */

/** The stable codes of {@link UserGroupApiError}; `switch` on `error.code`. */
export const UserGroupApiErrorCode = {
  /** The connection failed or broke before a whole response arrived. */
  network: 'network',
  /** One attempt took longer than `timeoutMs`. */
  timeout: 'timeout',
  /** The caller's `AbortSignal` fired. */
  aborted: 'aborted',
  /** The whole call, retries included, ran past `deadlineMs`. */
  deadlineExceeded: 'deadline_exceeded',
  /** A non-2xx status other than 429. */
  httpStatus: 'http_status',
  /** HTTP 429. */
  rateLimited: 'rate_limited',
  /** A 2xx answer with `success: 0`: the vendor refused the call. */
  apiFailure: 'api_failure',
  /** A 2xx answer that is not the documented shape (or too large, or not JSON). */
  malformedResponse: 'malformed_response',
} as const;
export type UserGroupApiErrorCode = (typeof UserGroupApiErrorCode)[keyof typeof UserGroupApiErrorCode];

/** Details every {@link UserGroupApiError} may carry besides its message. */
export interface UserGroupApiErrorOptions {
  cause?: unknown;
  status?: number;
  /** Overrides the code's default. */
  retryable?: boolean;
  retryAfterMs?: number;
}

/**
 * Base class of every failure of a vendor call. Its message never contains the API token.
 *
 * `retryable` says whether the failure is transient (a later attempt may succeed). For rotate it
 * does NOT mean resending is safe: rotate is not idempotent, so recover with get-or-create.
 *
 * @example
 * try {
 *   await client.getOrCreateUserGroup(input);
 * } catch (error) {
 *   if (error instanceof UserGroupApiError && error.code === 'rate_limited') {
 *     console.log('vendor says wait', error.retryAfterMs);
 *   }
 * }
 */
export class UserGroupApiError extends Error {
  readonly code: UserGroupApiErrorCode;
  readonly status: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(code: UserGroupApiErrorCode, message: string, options: UserGroupApiErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'UserGroupApiError';
    this.code = code;
    this.status = options.status;
    this.retryable = options.retryable ?? defaultRetryable(code, options.status);
    this.retryAfterMs = options.retryAfterMs;
  }
}

function defaultRetryable(code: UserGroupApiErrorCode, status: number | undefined): boolean {
  switch (code) {
    case 'network':
    case 'timeout':
    case 'deadline_exceeded':
    case 'rate_limited':
      return true;
    case 'http_status':
      return status !== undefined && (status >= 500 || status === 408);
    default:
      return false;
  }
}

/** `network`: no whole response (refused, reset, dropped, DNS…). Retryable. */
export class UserGroupNetworkError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('network', message, options);
    this.name = 'UserGroupNetworkError';
  }
}

/** `timeout`: one attempt exceeded `timeoutMs`. Retryable. */
export class UserGroupTimeoutError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('timeout', message, options);
    this.name = 'UserGroupTimeoutError';
  }
}

/** `aborted`: the caller's signal fired. Not retryable. */
export class UserGroupAbortedError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('aborted', message, options);
    this.name = 'UserGroupAbortedError';
  }
}

/** `deadline_exceeded`: the overall deadline passed. Retryable later. */
export class UserGroupDeadlineError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('deadline_exceeded', message, options);
    this.name = 'UserGroupDeadlineError';
  }
}

/** `http_status`: a non-2xx status other than 429. Retryable for 5xx and 408. */
export class UserGroupHttpStatusError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('http_status', message, options);
    this.name = 'UserGroupHttpStatusError';
  }
}

/** `rate_limited`: HTTP 429; `retryAfterMs` holds the vendor's `Retry-After` when sent. */
export class UserGroupRateLimitedError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('rate_limited', message, options);
    this.name = 'UserGroupRateLimitedError';
  }
}

/** `api_failure`: 2xx with `success: 0`. Not retryable. */
export class UserGroupApiFailureError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('api_failure', message, options);
    this.name = 'UserGroupApiFailureError';
  }
}

/** `malformed_response`: not JSON, not the documented shape, or too large. Not retryable. */
export class UserGroupMalformedResponseError extends UserGroupApiError {
  constructor(message: string, options?: UserGroupApiErrorOptions) {
    super('malformed_response', message, options);
    this.name = 'UserGroupMalformedResponseError';
  }
}
