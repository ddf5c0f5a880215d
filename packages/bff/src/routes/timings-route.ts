import type { Context, Hono } from 'hono';
import { BFF_ROUTES, TIMINGS_LIMITS, timingsReportProblem, type TimingsReport } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { checkBeaconType, readBeaconObject } from '../http/request-body.js';
import type { BffRuntime } from '../runtime.js';
import { andThen } from '../util/maybe-promise.js';
import { withinRequestDeadline } from './request-deadline.js';
import { respond } from './respond.js';

/**
 * `POST /timings` (ARCHITECTURE §4 "Timings"): a browser's report of one load or renewal of a
 * dashboard (the element's `report-timings`), observed into the timings histograms. In the order
 * a refusal costs least: the origin guard (the routes' middleware), the body's type, the session
 * (401), its rate limit (429: a flood is counted before its bodies are read), the body (413,
 * 400), the dashboard (403 unless one the BFF embeds); then 204. Nothing about the customer is
 * labelled, only the vendor, the dashboard and the kind.
 */
export function addTimingsRoute(routes: Hono, runtime: BffRuntime): void {
  const { metrics } = runtime;
  const vendor = runtime.vendor.name;
  const dashboards = runtime.timingDashboards;
  const histograms = { token: metrics.dashboardToken, frame: metrics.dashboardFrameReady, loaded: metrics.dashboardLoad } as const;

  const report = (body: Record<string, unknown> | undefined): TimingsReport => {
    const problem = timingsReportProblem(body);
    if (problem !== undefined) throw new BffError('bad_request', problem);
    const value = body as unknown as TimingsReport;
    if (dashboards === undefined)
      throw new BffError('forbidden', 'this BFF lists no dashboards (EMBED_DASHBOARDS, or the timings.dashboards option): timings reports are refused');
    if (!dashboards.has(value.dashboard))
      throw new BffError('forbidden', `dashboard ${JSON.stringify(value.dashboard.slice(0, 128))} is not one this BFF embeds`);
    return value;
  };

  routes.post(BFF_ROUTES.timings, async function timingsRoute(c: Context) {
    try {
      checkBeaconType(c);
      // The body is read only once the caller is known and within its limit.
      await withinRequestDeadline(andThen(runtime.callerOf(c), (caller) => runtime.rateLimit(caller.limitKeys.timings, 'timings')));
      const { dashboard, kind, ...timings } = report(await readBeaconObject(c, TIMINGS_LIMITS.maxBodyBytes));
      for (const field of ['token', 'frame', 'loaded'] as const) {
        const ms = timings[field];
        if (ms !== undefined) histograms[field].labels(vendor, dashboard, kind).observe(ms / 1000);
      }
      metrics.timingReports.labels('ok').inc();
      return respond(c, 204, null, undefined);
    } catch (error) {
      metrics.timingReports.labels(error instanceof BffError ? error.code : 'internal').inc();
      throw error;
    }
  });
}
