import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { BFF_ERROR_STATUS, type BffErrorBody, type BffErrorCode } from '@embedded-dashboard/protocol';
import type { RefusalReason } from '../observability/refusal-log.js';

export interface BffErrorOptions {
  /** Overrides the code's default status (e.g. 413 or 415 for `bad_request`). */
  status?: ContentfulStatusCode;
  /** Whether the browser may retry; defaults by code (5xx and 429 are retryable). */
  retryable?: boolean;
  /** Seconds for `Retry-After` (429 and 503). */
  retryAfterSeconds?: number;
  cause?: unknown;
  /** Set when the BFF refuses on purpose (no dependency failed): logged as an expected refusal, not an error. */
  refusal?: RefusalReason;
}

const RETRYABLE_BY_DEFAULT: ReadonlySet<BffErrorCode> = new Set<BffErrorCode>([
  'rate_limited',
  'upstream_error',
  'upstream_unavailable',
  'upstream_timeout',
  'internal',
]);

/**
 * The BFF's one HTTP error type. Its `message` is sent to the browser, so it must never carry
 * a secret; details for operators go in `cause` (logged, redacted).
 *
 * @example
 * ```ts
 * throw new BffError('forbidden', 'origin https://evil.example is not allowed');
 * ```
 */
export class BffError extends HTTPException {
  override name = 'BffError';
  readonly code: BffErrorCode;
  readonly retryable: boolean;
  readonly retryAfterSeconds: number | undefined;
  readonly refusal: RefusalReason | undefined;

  constructor(code: BffErrorCode, message: string, options: BffErrorOptions = {}) {
    super(options.status ?? (BFF_ERROR_STATUS[code] as ContentfulStatusCode), { message, cause: options.cause });
    this.code = code;
    this.retryable = options.retryable ?? RETRYABLE_BY_DEFAULT.has(code);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.refusal = options.refusal;
  }

  /** The JSON error body of ARCHITECTURE §4, with `Cache-Control: no-store` and `nosniff`. */
  override getResponse(): Response {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
    if (this.retryAfterSeconds !== undefined) headers['retry-after'] = String(this.retryAfterSeconds);
    return new Response(errorBodyJson(this), { status: this.status, headers });
  }
}

/** The one writer of the §4 error body: `{"error":{"code","message","retryable"}}`. */
export function errorBodyJson(error: BffError): string {
  const body: BffErrorBody = { error: { code: error.code, message: error.message, retryable: error.retryable } };
  return JSON.stringify(body);
}
