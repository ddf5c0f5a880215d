import { describe, expect, it } from 'vitest';
import { reserve, type BudgetRequest } from './reservation.js';

// 60 a minute: one call a second; a bucket of 5.
const base: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

function run(requests: BudgetRequest[], now: number, tat = 0) {
  const decisions = [];
  for (const request of requests) {
    const step = reserve(tat, now, request);
    tat = step.tat;
    decisions.push(step.decision);
  }
  return { tat, decisions };
}

describe('reserve (GCRA)', () => {
  it('admits a full bucket at once, then refuses callers that may not wait, telling them when to come back', () => {
    const { decisions } = run(Array(7).fill(base), 1_000_000);
    expect(decisions.slice(0, 5)).toEqual(Array(5).fill({ admitted: true, waitMs: 0 }));
    expect(decisions[5]).toEqual({ admitted: false, retryAfterMs: 1000 });
    expect(decisions[6]).toEqual({ admitted: false, retryAfterMs: 1000 });
  });

  it('gives callers that may wait their exact slot, in order, one interval apart', () => {
    const { decisions } = run(Array(8).fill({ ...base, maxLatenessMs: 2500 }), 1_000_000);
    expect(decisions.slice(5)).toEqual([
      { admitted: true, waitMs: 1000 },
      { admitted: true, waitMs: 2000 },
      { admitted: false, retryAfterMs: 500 },
    ]);
  });

  it('keeps a reserve for lower priorities: a caller needing half the bucket left is refused once it is half empty', () => {
    const low = { ...base, maxLatenessMs: -2500 };
    const { decisions } = run([low, low, base, low], 1_000_000);
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, true, false]);
  });

  it('refills at the steady rate and never beyond the bucket', () => {
    let { tat } = run(Array(5).fill(base), 1_000_000);
    expect(reserve(tat, 1_002_000, base).decision).toEqual({ admitted: true, waitMs: 0 });
    ({ tat } = reserve(tat, 1_002_000, base));
    ({ tat } = reserve(tat, 1_002_000, base));
    expect(reserve(tat, 1_002_000, base).decision.admitted).toBe(false);
    // An hour later: five again, not thousands.
    const later = run(Array(6).fill(base), 4_600_000, tat);
    expect(later.decisions.filter((d) => d.admitted)).toHaveLength(5);
  });

  it('a vendor 429 empties the bucket until its Retry-After has passed', () => {
    const paused = reserve(0, 1_000_000, { ...base, pauseMs: 30_000 });
    expect(paused.decision).toEqual({ admitted: false, retryAfterMs: 30_000 });
    expect(reserve(paused.tat, 1_029_000, { ...base, maxLatenessMs: 500 }).decision).toEqual({ admitted: false, retryAfterMs: 500 });
    expect(reserve(paused.tat, 1_030_000, base).decision).toEqual({ admitted: true, waitMs: 0 });
  });

  it('does not mint calls when the clock steps back', () => {
    const { tat } = run(Array(5).fill(base), 1_000_000);
    expect(reserve(tat, 900_000, base).decision.admitted).toBe(false);
  });
});
