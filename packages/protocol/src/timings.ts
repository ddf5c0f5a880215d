import { isRecord } from './guards.js';

/**
 * A timings report (`POST {basePath}/timings`, ARCHITECTURE §4 "Timings"): what one element
 * measured of one load or renewal, in milliseconds from its start, sent as a beacon.
 */
export interface TimingsReport {
  /** The element's `dashboard`: one of the dashboards the BFF embeds. */
  dashboard: string;
  /** `load`: a dashboard shown in a new frame; `renewal`: a token renewed in a shown one. */
  kind: TimingKind;
  /** Until the element had its token (retries included). */
  token?: number;
  /** Until the first frame of the load had loaded its page (`load`). */
  frame?: number;
  /** Until the dashboard said it was loaded (`dashboard-load`). */
  loaded?: number;
}

export const TIMING_KINDS = ['load', 'renewal'] as const;
export type TimingKind = (typeof TIMING_KINDS)[number];

/** The three timings a report may carry, by field. */
export const TIMING_FIELDS = ['token', 'frame', 'loaded'] as const;
export type TimingField = (typeof TIMING_FIELDS)[number];

/**
 * The bounds of a report, the BFF's and the element's: a body of at most 512 bytes, each timing
 * a finite number of milliseconds from 0 to 10 minutes (a longer wait is a tab in the background
 * or a page left open, not a load time), at least one timing.
 */
export const TIMINGS_LIMITS = { maxBodyBytes: 512, maxMs: 600_000 } as const;

/**
 * Why `value` is no timings report (a message naming the field), or `undefined` when it is one.
 * Exactly the fields of `TimingsReport`: numbers only (no string, no null, nothing non-finite),
 * within `TIMINGS_LIMITS`; which dashboards are allowed is the BFF's to say.
 */
export function timingsReportProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'a timings report is a JSON object';
  for (const field of Object.keys(value)) {
    if (field !== 'dashboard' && field !== 'kind' && !(TIMING_FIELDS as readonly string[]).includes(field))
      return `unknown field "${field.slice(0, 50)}": a report has dashboard, kind, token, frame and loaded`;
  }
  if (typeof value.dashboard !== 'string') return '"dashboard" must be a string';
  if (!(TIMING_KINDS as readonly unknown[]).includes(value.kind)) return '"kind" must be "load" or "renewal"';
  let timings = 0;
  for (const field of TIMING_FIELDS) {
    const ms = value[field];
    if (ms === undefined) continue;
    if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0 || ms > TIMINGS_LIMITS.maxMs)
      return `"${field}" must be a number of milliseconds from 0 to ${TIMINGS_LIMITS.maxMs}`;
    timings++;
  }
  return timings === 0 ? 'a report carries at least one of token, frame and loaded' : undefined;
}
