import { beforeEach, describe, expect, it } from 'vitest';
import type { BudgetRequest } from '../../../src/vendor-budget/reservation.js';
import type { TokenStore } from '../../../src/store/types.js';
import type { ContractStores } from './shared.js';

/** The contract's vendor budget: one GCRA step for every client, and how it carries across a store failure (issue 23, ARCHITECTURE §4.4). */
export function describeBudgetContract(current: () => ContractStores): void {
  let a: TokenStore;
  let b: TokenStore;
  beforeEach(() => {
    ({ a, b } = current());
  });

  describe('the vendor budget (GCRA)', () => {
    // One call a second, a bucket of 5: wide enough that a slow machine cannot refill it mid-test.
    const request: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

    it('is one budget per key for every client: a burst admits the bucket, refusals say when to retry', async () => {
      const decisions = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).reserveBudget!('acct-1', request)));
      expect(decisions.filter((d) => d.admitted)).toHaveLength(5);
      for (const d of decisions) {
        if (d.admitted) expect(d.waitMs).toBe(0);
        else expect(d.retryAfterMs).toBeGreaterThan(0);
      }
      expect(await a.reserveBudget!('acct-2', request)).toMatchObject({ admitted: true, waitMs: 0 });
    });

    it('gives waiting callers their own slots, one interval apart', async () => {
      // Fill the bucket until it refuses: five calls one after another can outlast an interval on a
      // loaded machine (the bucket refills meanwhile), so count to the refusal, not to five.
      for (let i = 0; i < 20 && (await a.reserveBudget!('acct-1', request)).admitted; i++);
      const started = Date.now();
      const waits = await Promise.all(Array.from({ length: 3 }, (_, i) => (i % 2 ? a : b).reserveBudget!('acct-1', { ...request, maxLatenessMs: 5000 })));
      // Each wait is counted from when the store took the call; the calls were taken within `spread`.
      const spread = Date.now() - started;
      const ms = waits.map((d) => (d.admitted ? d.waitMs : -1)).sort((x, y) => x - y);
      // A slot refilled since the refusal may admit the first caller at once; the others wait.
      expect(ms[0]).toBeGreaterThanOrEqual(0);
      expect(ms[1]).toBeGreaterThan(0);
      expect(ms[1]! - ms[0]!).toBeGreaterThanOrEqual(1000 - spread);
      expect(ms[2]! - ms[1]!).toBeGreaterThanOrEqual(1000 - spread);
      expect(ms[2]).toBeLessThanOrEqual(3000);
    });

    it('pauses for a vendor Retry-After: nothing is admitted until it has passed', async () => {
      expect(await a.reserveBudget!('acct-1', { ...request, pauseMs: 20_000 })).toMatchObject({ admitted: false, retryAfterMs: 20_000 });
      const refused = await b.reserveBudget!('acct-1', { ...request, maxLatenessMs: 3000 });
      expect(refused.admitted).toBe(false);
      expect(!refused.admitted && refused.retryAfterMs).toBeGreaterThan(15_000);
      expect((await b.reserveBudget!('acct-2', request)).admitted).toBe(true);
    });
  });

  describe('the vendor budget across a store failure', () => {
    const request: BudgetRequest = { intervalMs: 1000, burstMs: 5000, maxLatenessMs: 0 };

    it('says how far the budget is ahead of now after each step', async () => {
      const first = await a.reserveBudget!('acct-1', request);
      expect(first.aheadMs).toBeGreaterThan(900);
      expect(first.aheadMs).toBeLessThanOrEqual(1000);
      for (let i = 0; i < 4; i++) await b.reserveBudget!('acct-1', request);
      const refused = await a.reserveBudget!('acct-1', request);
      expect(refused.admitted).toBe(false);
      expect(refused.aheadMs).toBeGreaterThan(4000);
      expect(refused.aheadMs).toBeLessThanOrEqual(5000);
    });

    it('resumes from a floor the caller knew, and keeps it for every client, when the store has no budget (lost in a restart)', async () => {
      const floored = await a.reserveBudget!('acct-1', { ...request, floorMs: 5000 });
      expect(floored.admitted).toBe(false);
      expect((await b.reserveBudget!('acct-1', request)).admitted).toBe(false);
      expect((await b.reserveBudget!('acct-2', { ...request, floorMs: -60_000 })).admitted).toBe(true);
    });

    it('charges calls made while the store failed before the step', async () => {
      const decisions = [await a.reserveBudget!('acct-1', { ...request, debtCalls: 4 })];
      for (let i = 0; i < 2; i++) decisions.push(await b.reserveBudget!('acct-1', request));
      expect(decisions.map((d) => d.admitted)).toEqual([true, false, false]);
    });
  });
}
