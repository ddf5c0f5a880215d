/**
 * When to try again, the same way in every package: exponential backoff with full jitter, the
 * server's `Retry-After`, and a deadline for one piece of work.
 */

// A Retry-After further out than a day still means "not now": it is capped at a day (longer than
// any deadline, so the caller stops) rather than ignored, which would retry at once.
const MAX_RETRY_AFTER_MS = 86_400_000;

/**
 * Parses `Retry-After` (delay-seconds or an HTTP date, RFC 9110 §10.2.3) into milliseconds from
 * `now`; `undefined` when absent or unparseable. A date in the past means "now" (0); more than a
 * day ahead is capped at a day.
 *
 * @example
 * parseRetryAfter('3', Date.now()); // 3000
 * parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('2015-10-21T07:27:58Z')); // 2000
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | undefined {
  const text = value?.trim() ?? '';
  // Only an IMF-fixdate besides delay-seconds: Date.parse alone accepts far too much (e.g. "1").
  const at = /^\d+$/.test(text) ? now + +text * 1000 : /^\w{3}, \d\d \w{3} \d{4} [\d:]{8} GMT$/.test(text) ? Date.parse(text) : Number.NaN;
  return at === at ? Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS) : undefined;
}

/**
 * Full jitter: a uniformly random delay in [0, min(maxMs, baseMs · 2^(retry-1))). `retry` counts
 * from 1 (the wait before the second attempt). A broken `random` (NaN, out of [0, 1]) never makes
 * a negative or NaN wait.
 *
 * @example
 * backoffDelay(3, 200, 5_000, Math.random); // somewhere in [0, 800)
 */
export function backoffDelay(retry: number, baseMs: number, maxMs: number, random: () => number): number {
  const r = random();
  const unit = r > 0 ? Math.min(r, 1) : 0;
  return Math.floor(unit * Math.min(maxMs, baseMs * 2 ** Math.min(retry - 1, 30)));
}

/**
 * Settles like `work(signal)`, or rejects with `onTimeout()` once `ms` pass, aborting `signal`
 * so the work can stop. The timer is cleared as soon as the work settles.
 *
 * @example
 * await withTimeout((signal) => fetch(url, { signal }), 5_000, () => new Error('timed out'));
 */
export function withTimeout<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, onTimeout: () => unknown): Promise<T> {
  const abort = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(onTimeout());
    }, ms);
  });
  return Promise.race([work(abort.signal), timeout]).finally(() => clearTimeout(timer));
}
