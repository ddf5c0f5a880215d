/**
 * The demo's own small API between the `/app` page and the demo server (not part of the
 * toolkit: the BFF's routes live under `/embed`).
 */
import type { EmulatorStats } from '@embedded-dashboard/protocol';
import type { DemoCustomer } from './customers.js';

export const DEMO_API = {
  session: '/api/session',
  expireToken: '/api/token/expire',
  outage: '/api/vendor/outage',
  vendorStatus: '/api/vendor/status',
} as const;

/** `GET /api/session`: who is signed in and how the page should embed the dashboard. */
export interface DemoSessionInfo {
  customer: DemoCustomer;
  /** The element's `src-template`: the emulator, on another origin than the host app. */
  srcTemplate: string;
  tokenUrl: string;
  /** The token route of the BFF that answers embed tokens (`?protocol=explo-jwt`); `null` when there is none. */
  embedTokenUrl: string | null;
  /** The token route of the BFF whose embed tokens the vendor mints and which may name one chart (`?protocol=explo-jwt&chart=…`); `null` when there is none. */
  chartTokenUrl: string | null;
  /** The element's `refresh-margin` in seconds, when the demo overrides the default. */
  refreshMarginSeconds: number | null;
  /** The BFF's token TTL in seconds; `0` when disabled. */
  tokenTtlSeconds: number;
}

/** `GET /api/vendor/status` and the answer of `POST /api/vendor/outage`. */
export interface DemoVendorStatus {
  outage: boolean;
  stats: EmulatorStats;
  /** What the page's elements reported (`report-timings`), as the BFFs' histograms hold it. */
  timings: DemoTimings;
}

/** The BFFs' timings histograms summed over their labels: how many, and their mean in seconds. */
export interface DemoTimings {
  loads: number;
  /** Mean seconds until the dashboard said loaded, over the loads; `null` before the first. */
  loadSeconds: number | null;
  /** Mean seconds until the token, over the loads. */
  loadTokenSeconds: number | null;
  renewals: number;
  /** Mean seconds until the renewed token. */
  renewalTokenSeconds: number | null;
}

/** `POST /api/vendor/outage` body. */
export interface DemoOutageRequest {
  on: boolean;
}

/**
 * `POST /api/token/expire` answer: `expired` when the signed-in customer's current token was
 * expired now, `already-refused` when the vendor refuses it already (a rotation is pending),
 * `no-token` when the BFF has handed this customer none yet.
 */
export interface DemoExpireResult {
  outcome: 'expired' | 'already-refused' | 'no-token';
}
