import { BFF_REQUEST_DEADLINE_MS, UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS, withTimeout } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/**
 * Answers within the deadline budget's `BFF_REQUEST_DEADLINE_MS`: work still pending then is
 * answered with 504 `upstream_timeout` and `Retry-After`, before the element gives up on the
 * request. The work itself goes on (a shared vendor call serves the element's next try); an
 * answer that is already there costs no timer.
 */
export function withinRequestDeadline<T>(work: MaybePromise<T>, deadlineMs = BFF_REQUEST_DEADLINE_MS): MaybePromise<T> {
  if (!(work instanceof Promise)) return work;
  const late = () =>
    new BffError('upstream_timeout', `the request did not finish within ${deadlineMs} ms`, { retryAfterSeconds: UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS });
  return withTimeout(() => work, deadlineMs, late);
}
