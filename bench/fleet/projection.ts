/**
 * The fleet projection of bench/README.md: per-request costs measured by row 7 scaled to a fleet
 * serving many customers, under stated assumptions about traffic. Arithmetic only; every
 * measured input comes from the run, every assumption is a named field.
 */

/** Costs the fleet row measured (4 BFF processes on one Redis, the budget on). */
export interface MeasuredCosts {
  /** BFF CPU time (user + system) per cached token request, µs. */
  cpuMicrosPerCachedRequest: number;
  /** Redis commands per cached token request. */
  redisOpsPerCachedRequest: number;
  /** Redis commands per new customer, its retries included. */
  redisOpsPerNewCustomer: number;
  /** Vendor calls (every type) per new customer. */
  vendorCallsPerNewCustomer: number;
  /** Vendor calls per returning customer whose entry the store no longer holds. */
  vendorCallsPerExpiredCustomer: number;
}

export interface FleetAssumptions {
  customers: number;
  /** Share of all customers with a visit in the peak hour (a Monday morning). */
  peakHourActiveShare: number;
  /** Token requests per active customer in that hour (page views with the element, several users). */
  tokenRequestsPerActiveCustomerHour: number;
  /**
   * Share of the peak hour's customers whose group is no longer in the store: the store forgets a
   * group a day after its last sync (entry TTL, the BFF's default), so after a weekend that is
   * every Monday visitor, unless the groups were provisioned that morning.
   */
  coldShare: number;
  /** Customers the fleet has never seen, arriving in the peak hour. */
  newCustomersInPeakHour: number;
  /** A cached group is re-read at the vendor on the first request this long after its sync (`EMBED_REVALIDATE_AFTER`). */
  revalidateAfterSeconds: number;
  /** The fleet's vendor budget (`EMBED_UPSTREAM_RATE`) and the vendor's own limit, calls a minute. */
  budgetPerMinute: number;
  vendorLimitPerMinute: number;
  /** Share of a core one BFF process is planned to use at the peak (headroom for bursts and GC). */
  usableCorePerProcess: number;
}

export interface FleetProjection {
  activeCustomersInPeakHour: number;
  tokenRequestsPerSecond: number;
  firstVisitsPerMinute: number;
  /** Revalidations the peak hour asks for (each active customer at most once per interval). */
  revalidationsPerMinute: number;
  /** Vendor calls a minute the peak asks for, first visits and revalidations. */
  vendorDemandPerMinute: number;
  redisOpsPerSecond: number;
  processes: number;
  /** Hours the budget needs to make every customer's first call once (a cold start, or provisioning). */
  coldStartHours: number;
  /** Hours until the last cold visitor of the peak hour has a token, first visits taking the whole budget. */
  peakFirstVisitBacklogHours: number;
  /** Customers whose groups the budget alone can keep revalidated at the interval. */
  customersRevalidatedAtInterval: number;
}

export function projectFleet(measured: MeasuredCosts, a: FleetAssumptions): FleetProjection {
  const active = a.customers * a.peakHourActiveShare;
  const tokenRequestsPerSecond = (active * a.tokenRequestsPerActiveCustomerHour) / 3600;
  const coldPerHour = active * a.coldShare;
  const firstVisitsPerHour = coldPerHour + a.newCustomersInPeakHour;
  const firstVisitCallsPerHour = coldPerHour * measured.vendorCallsPerExpiredCustomer + a.newCustomersInPeakHour * measured.vendorCallsPerNewCustomer;
  // A customer revalidates on its first request at least the interval after its last sync: at
  // most once per interval, and never more often than it asks; a cold first visit is no revalidation.
  const syncsPerCustomerHour = Math.min(a.tokenRequestsPerActiveCustomerHour, 3600 / a.revalidateAfterSeconds);
  const revalidationsPerMinute = (active * Math.max(0, syncsPerCustomerHour - a.coldShare)) / 60;
  const cachedPerSecond = Math.max(0, tokenRequestsPerSecond - firstVisitsPerHour / 3600);
  const redisOpsPerSecond = cachedPerSecond * measured.redisOpsPerCachedRequest + (firstVisitsPerHour / 3600) * measured.redisOpsPerNewCustomer;
  const cores = (tokenRequestsPerSecond * measured.cpuMicrosPerCachedRequest) / 1e6;
  return {
    activeCustomersInPeakHour: active,
    tokenRequestsPerSecond,
    firstVisitsPerMinute: firstVisitsPerHour / 60,
    revalidationsPerMinute,
    vendorDemandPerMinute: firstVisitCallsPerHour / 60 + revalidationsPerMinute,
    redisOpsPerSecond,
    // Two at least: one process is no fleet (a deploy or a crash takes it away).
    processes: Math.max(2, Math.ceil(cores / a.usableCorePerProcess)),
    coldStartHours: (a.customers * measured.vendorCallsPerNewCustomer) / a.budgetPerMinute / 60,
    peakFirstVisitBacklogHours: firstVisitCallsPerHour / a.budgetPerMinute / 60,
    customersRevalidatedAtInterval: (a.budgetPerMinute * a.revalidateAfterSeconds) / 60,
  };
}

/** `EMBED_REVALIDATE_AFTER`'s default in the BFF CLI (a test holds the two together). */
export const DEFAULT_REVALIDATE_AFTER_SECONDS = 300;

/** The assumptions bench/README.md states for 1,000,000 customers. */
export const MILLION_CUSTOMERS: Omit<FleetAssumptions, 'revalidateAfterSeconds'> = {
  customers: 1_000_000,
  peakHourActiveShare: 0.2,
  tokenRequestsPerActiveCustomerHour: 10,
  coldShare: 1,
  newCustomersInPeakHour: 1_000,
  budgetPerMinute: 150,
  vendorLimitPerMinute: 180,
  usableCorePerProcess: 0.6,
};

const n = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** The projection as the lines the bench prints under its table (and bench/README.md quotes). */
export function describeProjection(measured: MeasuredCosts, a: FleetAssumptions): string[] {
  const p = projectFleet(measured, a);
  return [
    `Projection for ${n(a.customers)} customers (bench/fleet/projection.ts), from this run's measured costs: ` +
      `${n(measured.cpuMicrosPerCachedRequest)} µs BFF CPU and ${n(measured.redisOpsPerCachedRequest, 1)} Redis commands per cached token request, ` +
      `${n(measured.redisOpsPerNewCustomer, 1)} Redis commands and ${n(measured.vendorCallsPerNewCustomer, 2)} vendor calls per new customer, ` +
      `${n(measured.vendorCallsPerExpiredCustomer, 2)} vendor calls per returning customer whose entry expired.`,
    `Assumed: ${n(a.peakHourActiveShare * 100)} % of customers active in the peak hour, ${n(a.tokenRequestsPerActiveCustomerHour)} token requests each, ` +
      `${n(a.coldShare * 100)} % of them no longer in the store (a Monday), ${n(a.newCustomersInPeakHour)} new customers in that hour, revalidation after ${n(a.revalidateAfterSeconds)} s, budget ${n(a.budgetPerMinute)}/min ` +
      `(vendor limit ${n(a.vendorLimitPerMinute)}/min), ${n(a.usableCorePerProcess * 100)} % of a core per process.`,
    `- token requests at the peak: ${n(p.tokenRequestsPerSecond)}/s; BFF processes needed: ${n(p.processes)}; Redis: ${n(p.redisOpsPerSecond)} commands/s`,
    `- first visits at the peak: ${n(p.firstVisitsPerMinute)}/min; revalidations asked for: ${n(p.revalidationsPerMinute)}/min; ` +
      `vendor calls asked for: ${n(p.vendorDemandPerMinute)}/min = ${n(p.vendorDemandPerMinute / a.vendorLimitPerMinute)}× the vendor's limit`,
    `- the peak hour's first visits need ${n(p.peakFirstVisitBacklogHours, 1)} h of the whole budget; a cold start (or provisioning) of all ` +
      `${n(a.customers)} customers ${n(p.coldStartHours, 1)} h (${n(p.coldStartHours / 24, 1)} days); the budget keeps ${n(p.customersRevalidatedAtInterval)} customers revalidated at the interval`,
  ];
}
