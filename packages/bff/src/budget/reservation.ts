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
}

/** The budget's answer: admitted after `waitMs`, or refused with the ms until a call would be admitted. */
export type BudgetDecision = { admitted: true; waitMs: number } | { admitted: false; retryAfterMs: number };

/** One step of GCRA on `tat` at `now`; returns the new `tat` (unchanged when refused). */
export function reserve(tat: number, now: number, request: BudgetRequest): { tat: number; decision: BudgetDecision } {
  const from = Math.max(tat, now);
  if (request.pauseMs !== undefined) {
    // Nothing more until the vendor's Retry-After has passed, and then an empty bucket.
    const paused = Math.max(from, now + request.pauseMs + request.burstMs - request.intervalMs);
    return { tat: paused, decision: { admitted: false, retryAfterMs: request.pauseMs } };
  }
  const next = from + request.intervalMs;
  const lateness = next - request.burstMs - now;
  if (lateness > request.maxLatenessMs) {
    return { tat, decision: { admitted: false, retryAfterMs: Math.max(1, Math.ceil(lateness - Math.max(0, request.maxLatenessMs))) } };
  }
  return { tat: next, decision: { admitted: true, waitMs: Math.max(0, lateness) } };
}
