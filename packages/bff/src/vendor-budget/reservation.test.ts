import { describe, expect, it } from 'vitest';
import { MAX_DEBT_MS, reserve, type BudgetDecision, type BudgetRequest } from './reservation.js';

// 60 a minute: one call a second; a bucket of 5.
const base: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

/** The decision without `aheadMs` (its own tests below). */
const withoutAhead = ({ aheadMs: _ahead, ...decision }: BudgetDecision) => decision;

function run(requests: BudgetRequest[], now: number, tat = 0) {
  const decisions = [];
  for (const request of requests) {
    const step = reserve(tat, now, request);
    tat = step.tat;
    decisions.push(withoutAhead(step.decision));
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
    expect(withoutAhead(reserve(tat, 1_002_000, base).decision)).toEqual({ admitted: true, waitMs: 0 });
    ({ tat } = reserve(tat, 1_002_000, base));
    ({ tat } = reserve(tat, 1_002_000, base));
    expect(reserve(tat, 1_002_000, base).decision.admitted).toBe(false);
    // An hour later: five again, not thousands.
    const later = run(Array(6).fill(base), 4_600_000, tat);
    expect(later.decisions.filter((d) => d.admitted)).toHaveLength(5);
  });

  it('a vendor 429 empties the bucket until its Retry-After has passed', () => {
    const paused = reserve(0, 1_000_000, { ...base, pauseMs: 30_000 });
    expect(withoutAhead(paused.decision)).toEqual({ admitted: false, retryAfterMs: 30_000 });
    expect(withoutAhead(reserve(paused.tat, 1_029_000, { ...base, maxLatenessMs: 500 }).decision)).toEqual({ admitted: false, retryAfterMs: 500 });
    expect(withoutAhead(reserve(paused.tat, 1_030_000, base).decision)).toEqual({ admitted: true, waitMs: 0 });
  });

  it('does not mint calls when the clock steps back', () => {
    const { tat } = run(Array(5).fill(base), 1_000_000);
    expect(reserve(tat, 900_000, base).decision.admitted).toBe(false);
  });

  it('says how far the budget is ahead of now after each step: 0 with a full bucket, the burst with an empty one', () => {
    let tat = 0;
    const ahead = [];
    for (let i = 0; i < 6; i++) {
      const step = reserve(tat, 1_000_000, base);
      tat = step.tat;
      ahead.push(step.decision.aheadMs);
    }
    expect(ahead).toEqual([1000, 2000, 3000, 4000, 5000, 5000]);
    expect(reserve(tat, 1_004_000, base).decision.aheadMs).toBe(2000);
    expect(reserve(0, 1_000_000, { ...base, pauseMs: 3000 }).decision.aheadMs).toBe(7000);
  });

  it('resumes from a floor the caller knew (a store that lost the budget does not hand out a full bucket)', () => {
    // The budget was empty when last seen (ahead by the whole burst); the store now holds nothing.
    const floored = { ...base, floorMs: 5000 };
    expect(withoutAhead(reserve(0, 1_000_000, floored).decision)).toEqual({ admitted: false, retryAfterMs: 1000 });
    // Refused, but the floor is kept: the next caller without one is refused too.
    const { tat } = reserve(0, 1_000_000, floored);
    expect(reserve(tat, 1_000_000, base).decision.admitted).toBe(false);
    // A floor in the past changes nothing.
    expect(reserve(0, 1_000_000, { ...base, floorMs: -10_000 }).decision).toEqual({ admitted: true, waitMs: 0, aheadMs: 1000 });
  });

  it('charges calls made without the budget before the step, up to a minute past an empty bucket', () => {
    // Three calls made while the store was away: two slots of the five are left.
    const { decisions } = run([{ ...base, debtCalls: 3 }, base, base], 1_000_000);
    expect(decisions.map((d) => d.admitted)).toEqual([true, true, false]);
    // A huge debt closes the budget for at most a minute past the empty bucket.
    const charged = reserve(0, 1_000_000, { ...base, debtCalls: 1_000_000 });
    expect(charged.decision).toEqual({ admitted: false, retryAfterMs: MAX_DEBT_MS + 1000, aheadMs: 5000 + MAX_DEBT_MS });
    expect(reserve(charged.tat, 1_000_000 + MAX_DEBT_MS + 1000, base).decision.admitted).toBe(true);
  });
});
