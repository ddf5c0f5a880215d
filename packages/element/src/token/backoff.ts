/** First retry waits up to this long; each failure doubles the ceiling. */
export const BACKOFF_BASE_MS = 1_000;
/** The ceiling stops growing here, so a long outage is retried every minute at most. */
export const BACKOFF_CAP_MS = 60_000;

/**
 * A `Retry-After` longer than this is obeyed only this far: `Retry-After: 1e400` must not end the
 * loop (an infinite delay arms no timer at all) nor park it for the 24 days a timer can hold.
 */
export const RETRY_AFTER_CAP_MS = 300_000;

/**
 * Exponential backoff with full jitter: a uniform delay in `[0, min(cap, base·2^attempt))`, or the
 * server's `Retry-After` (capped) when that is longer. `random` is injectable for tests.
 */
export const backoffDelay = (attempt: number, retryAfter: number, random: () => number): number =>
  Math.max(Math.min(retryAfter, RETRY_AFTER_CAP_MS), random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt));
