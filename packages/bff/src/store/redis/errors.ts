/** Why a Redis store operation failed. */
export type RedisStoreErrorCode = 'unavailable' | 'closed';

/**
 * The rejection of every Redis store method that could not reach Redis (`unavailable`: down,
 * still connecting after the connect timeout, or a command timed out) or was called after
 * `close()` (`closed`). The original error is the `cause`; the message never carries the URL
 * (it may hold a password).
 */
export class RedisStoreError extends Error {
  override readonly name = 'RedisStoreError';
  readonly code: RedisStoreErrorCode;

  constructor(code: RedisStoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
