import { describe, expect, it } from 'vitest';
import { arrivalOffsetMs, opsBetween, redisCommands, sumCounter, summarizeVisits, totalOps } from './analysis.js';

describe('summarizeVisits', () => {
  it('takes time to token from each visit’s own arrival and counts visits that never got one', () => {
    const summary = summarizeVisits([
      { arrivedAt: 1_000, servedAt: 1_500, attempts: 1 },
      { arrivedAt: 2_000, servedAt: undefined, attempts: 9 },
      { arrivedAt: 3_000, servedAt: 3_100, attempts: 1 },
      { arrivedAt: 0, servedAt: 10_000, attempts: 4 },
    ]);
    expect(summary.timesMs).toEqual([100, 500, 10_000]);
    expect(summary.p50Ms).toBe(500);
    expect(summary.p99Ms).toBeCloseTo(500 + 0.98 * 9_500);
    expect(summary.neverServed).toBe(1);
  });

  it('has no percentiles when nobody was served', () => {
    const summary = summarizeVisits([{ arrivedAt: 0, servedAt: undefined, attempts: 3 }]);
    expect(summary.p50Ms).toBeNaN();
    expect(summary.neverServed).toBe(1);
  });
});

describe('vendor counters', () => {
  it('subtracts per operation and sums every type', () => {
    const ops = opsBetween({ getOrCreate: 10, update: 2, rotate: 1 }, { getOrCreate: 1_010, update: 3, rotate: 1 });
    expect(ops).toEqual({ getOrCreate: 1_000, update: 1, rotate: 0 });
    expect(totalOps(ops)).toBe(1_001);
  });
});

describe('sumCounter', () => {
  const text = [
    '# HELP embed_bff_budget_used_total Vendor calls the vendor budget admitted, by priority',
    '# TYPE embed_bff_budget_used_total counter',
    'embed_bff_budget_used_total{priority="first-token"} 250',
    'embed_bff_budget_used_total{priority="revalidation"} 3',
    'embed_bff_budget_used_total_other{priority="revalidation"} 99',
    'embed_bff_budget_pauses_total 2',
  ].join('\n');

  it('sums the series whose labels match, and only of that exact name', () => {
    expect(sumCounter(text, 'embed_bff_budget_used_total', { priority: 'revalidation' })).toBe(3);
    expect(sumCounter(text, 'embed_bff_budget_used_total')).toBe(253);
    expect(sumCounter(text, 'embed_bff_budget_pauses_total')).toBe(2);
  });

  it('is 0 for a counter never incremented (no series yet)', () => {
    expect(sumCounter(text, 'embed_bff_budget_used_total', { priority: 'drift' })).toBe(0);
    expect(sumCounter('', 'embed_bff_budget_used_total')).toBe(0);
  });
});

describe('redisCommands', () => {
  it('sums the calls of every command but INFO, script-internal calls included', () => {
    const info = [
      '# Commandstats',
      'cmdstat_get:calls=120,usec=300,usec_per_call=2.50,rejected_calls=0,failed_calls=0',
      'cmdstat_evalsha:calls=40,usec=900,usec_per_call=22.50,rejected_calls=0,failed_calls=0',
      'cmdstat_info:calls=7,usec=70,usec_per_call=10.00,rejected_calls=0,failed_calls=0',
      'cmdstat_client|setinfo:calls=8,usec=8,usec_per_call=1.00,rejected_calls=0,failed_calls=0',
    ].join('\r\n');
    expect(redisCommands(info)).toBe(168);
  });
});

describe('arrivalOffsetMs', () => {
  it('spreads the visits evenly from 0 to the whole spread', () => {
    expect([0, 1, 2, 3, 4].map((i) => arrivalOffsetMs(i, 5, 60_000))).toEqual([0, 15_000, 30_000, 45_000, 60_000]);
    expect(arrivalOffsetMs(0, 1, 60_000)).toBe(0);
  });
});
