/**
 * When to try again: exponential backoff with full jitter, unless the vendor said when.
 */

// A Retry-After further out than a day still means "not now": it is capped at a day (longer than
// any deadline, so the caller stops) rather than ignored, which would retry at once.
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Parses `Retry-After` (delay-seconds or an HTTP date) into milliseconds from `now`;
 * `undefined` when absent or unparseable. A date in the past means "now" (0); more than a day
 * ahead is capped at a day.
 *
 * @example
 * parseRetryAfter('3', Date.now()); // 3000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:58Z')); // 2000
 */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  }
  // Only an IMF-fixdate-like shape: Date.parse accepts far too much (e.g. "1") on its own.
  if (!/^[A-Za-z]{3}, \d{2} [A-Za-z]{3} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

/**
 * Full jitter: a uniformly random delay in [0, min(maxMs, baseMs · 2^(retry-1))).
 * `retry` counts from 1 (the wait before the second attempt).
 *
 * @example
 * backoffDelay(3, 200, 5_000, Math.random); // somewhere in [0, 800)
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(retry - 1, 30));
  const r = random();
  // A broken injected random must not produce NaN or negative waits.
  const unit = Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  return Math.floor(unit * ceiling);
}
