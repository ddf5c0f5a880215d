import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../packages/bff/src/cli/env.js';
import {
  DEFAULT_REVALIDATE_AFTER_SECONDS,
  describeProjection,
  MILLION_CUSTOMERS,
  projectFleet,
  type FleetAssumptions,
  type MeasuredCosts,
} from './projection.js';

const measured: MeasuredCosts = {
  cpuMicrosPerCachedRequest: 500,
  redisOpsPerCachedRequest: 4,
  redisOpsPerNewCustomer: 20,
  vendorCallsPerNewCustomer: 1,
  vendorCallsPerExpiredCustomer: 2,
};
const small: FleetAssumptions = {
  customers: 36_000,
  peakHourActiveShare: 0.5,
  tokenRequestsPerActiveCustomerHour: 10,
  coldShare: 0.1,
  newCustomersInPeakHour: 600,
  revalidateAfterSeconds: 600,
  budgetPerMinute: 150,
  vendorLimitPerMinute: 180,
  usableCorePerProcess: 0.5,
};

describe('projectFleet', () => {
  it('scales the measured costs by the assumed traffic', () => {
    const p = projectFleet(measured, small);
    expect(p.activeCustomersInPeakHour).toBe(18_000);
    expect(p.tokenRequestsPerSecond).toBe(50); // 18,000 × 10 / 3,600
    expect(p.firstVisitsPerMinute).toBe(40); // 1,800 expired + 600 new in the hour
    // At most 6 syncs an hour (one per 600 s), less the expired share's first visit.
    expect(p.revalidationsPerMinute).toBeCloseTo((18_000 * 5.9) / 60);
    // Expired entries cost 2 calls each, new customers 1.
    expect(p.vendorDemandPerMinute).toBeCloseTo((1_800 * 2 + 600) / 60 + (18_000 * 5.9) / 60);
    expect(p.redisOpsPerSecond).toBeCloseTo((50 - 2_400 / 3_600) * 4 + (2_400 / 3_600) * 20);
    expect(p.processes).toBe(2); // 0.025 cores; never fewer than two
    expect(p.coldStartHours).toBe(4); // 36,000 new groups at 150 a minute
    expect(p.peakFirstVisitBacklogHours).toBeCloseTo(4_200 / 150 / 60);
    expect(p.customersRevalidatedAtInterval).toBe(1_500);
  });

  it('asks for more processes when the CPU needs them, and for more vendor calls when a new customer costs more', () => {
    const busy = projectFleet({ ...measured, cpuMicrosPerCachedRequest: 30_000, vendorCallsPerNewCustomer: 2 }, small);
    expect(busy.processes).toBe(3); // 1.5 cores at half a core each
    expect(busy.coldStartHours).toBe(8);
    expect(busy.peakFirstVisitBacklogHours).toBeCloseTo((1_800 * 2 + 600 * 2) / 150 / 60);
  });

  it('never revalidates more often than customers ask', () => {
    const p = projectFleet(measured, { ...small, tokenRequestsPerActiveCustomerHour: 2, revalidateAfterSeconds: 60 });
    expect(p.revalidationsPerMinute).toBeCloseTo((18_000 * 1.9) / 60);
  });
});

describe('the million-customer projection', () => {
  it('uses the CLI’s own revalidation default', () => {
    const defaults = parseConfig({ EMBED_UPSTREAM_URL: 'http://127.0.0.1:1', EMBED_API_TOKEN: 'token-0123456789', EMBED_SESSION_SECRET: 's'.repeat(32) });
    expect(defaults.config?.revalidateAfterSeconds).toBe(DEFAULT_REVALIDATE_AFTER_SECONDS);
  });

  it('reads as the lines the bench prints', () => {
    const lines = describeProjection(measured, { ...MILLION_CUSTOMERS, revalidateAfterSeconds: 300 });
    expect(lines).toHaveLength(5);
    expect(lines.join('\n')).toContain('a cold start (or provisioning) of all 1,000,000 customers 111.1 h (4.6 days)');
    expect(lines.join('\n')).toContain('first visits at the peak: 3,350/min');
  });
});
