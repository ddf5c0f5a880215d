import { backoffDelay } from '@embedded-dashboard/protocol';

/** First retry waits up to this long; each failure doubles the ceiling. */
export const BACKOFF_BASE_MS = 1_000;
/** The ceiling stops growing here, so a long outage is retried every minute at most. */
export const BACKOFF_CAP_MS = 60_000;

/**
 * A `Retry-After` longer than this is obeyed only this far: a server asking for a day must not
 * park the element for a day (nor, past 24 days, arm a timer that fires at once).
 */
export const RETRY_AFTER_CAP_MS = 300_000;

/**
 * The wait before retry number `retry` (from 1): full-jitter backoff, or the server's
 * `Retry-After` (capped) when that is longer. `random` is injectable for tests.
 */
export const retryDelay = (retry: number, retryAfter: number, random: () => number): number =>
  Math.max(Math.min(retryAfter, RETRY_AFTER_CAP_MS), backoffDelay(retry, BACKOFF_BASE_MS, BACKOFF_CAP_MS, random));
