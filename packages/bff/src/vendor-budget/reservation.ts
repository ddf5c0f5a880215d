/**
 * The vendor budget's arithmetic, shared by every store: GCRA (the generic cell rate algorithm),
 * a token bucket kept as one number, the theoretical arrival time `tat` of the next call. A call
 * reserves the slot `interval` after the last reservation (or now, when the bucket is full); the
 * bucket holds `burst` calls' worth, so a reservation is due `tat - burst` after now. Waiting
 * callers are therefore served in the order they reserved, each knows its exact wait up front,
 * and no one polls. The Redis store runs the same steps in one Lua script (`BUDGET_SCRIPT`),
 * reading the clock with Redis `TIME` so processes with skewed clocks share one timeline.
 */

/** What one caller asks of the budget. */
export interface BudgetRequest {
  /** Milliseconds between calls at the steady rate (60 000 / calls per minute). */
  intervalMs: number;
  /** Milliseconds of calls the bucket holds (burst size × interval). */
  burstMs: number;
  /**
   * How late past "the bucket is empty" this caller may be admitted, in ms: positive for callers
   * that may wait that long, negative for callers that need that much left in the bucket.
   */
  maxLatenessMs: number;
  /** Instead of reserving: the vendor said 429 with this `Retry-After`; empty the bucket until then. */
  pauseMs?: number;
  /**
   * What the caller knows the budget was at least: `tat` no earlier than now + `floorMs` (the
   * `aheadMs` it was last told, less the time since). A store that lost the budget (a Redis
   * restarted empty) then resumes from there instead of handing out a full bucket.
   */
  floorMs?: number;
  /**
   * Calls the caller made without this budget (counted in its own memory while the shared store
   * failed), charged before this step: at most {@link MAX_DEBT_MS} past an empty bucket.
   */
  debtCalls?: number;
}

/** How far past an empty bucket calls made while the store was away may push the budget (a minute's refusals at most). */
export const MAX_DEBT_MS = 60_000;

/**
 * The budget's answer: admitted after `waitMs`, or refused with the ms until a call would be
 * admitted; `aheadMs`, where the store says it, is how far the budget's `tat` is ahead of now
 * after this step (0 with a full bucket, `burstMs` with an empty one): what a caller keeps to
 * pass as `floorMs` later, whatever the clocks say.
 */
export type BudgetDecision = ({ admitted: true; waitMs: number } | { admitted: false; retryAfterMs: number }) & { aheadMs?: number };

/**
 * One step of GCRA on `tat` at `now`; returns the new `tat` (when refused, unchanged but for
 * `floorMs` and `debtCalls`, which are facts about the past rather than requests).
 */
export function reserve(tat: number, now: number, request: BudgetRequest): { tat: number; decision: BudgetDecision } {
  let from = Math.max(tat, now, request.floorMs === undefined ? now : now + request.floorMs);
  if (request.debtCalls !== undefined && request.debtCalls > 0) {
    from = Math.max(from, Math.min(from + request.debtCalls * request.intervalMs, now + request.burstMs + MAX_DEBT_MS));
  }
  const ahead = (t: number) => Math.max(0, t - now);
  if (request.pauseMs !== undefined) {
    // Nothing more until the vendor's Retry-After has passed, and then an empty bucket.
    const paused = Math.max(from, now + request.pauseMs + request.burstMs - request.intervalMs);
    return { tat: paused, decision: { admitted: false, retryAfterMs: request.pauseMs, aheadMs: ahead(paused) } };
  }
  const next = from + request.intervalMs;
  const lateness = next - request.burstMs - now;
  if (lateness > request.maxLatenessMs) {
    const retryAfterMs = Math.max(1, Math.ceil(lateness - Math.max(0, request.maxLatenessMs)));
    return { tat: Math.max(tat, from), decision: { admitted: false, retryAfterMs, aheadMs: ahead(Math.max(tat, from)) } };
  }
  return { tat: next, decision: { admitted: true, waitMs: Math.max(0, lateness), aheadMs: ahead(next) } };
}
