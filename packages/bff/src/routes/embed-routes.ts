import { Hono, type Context } from 'hono';
import { BFF_ROUTES, isChartId, isDashboardId, TOKEN_REQUEST_FIELDS, type TokenRequest, type TokenResponse } from '@embedded-dashboard/protocol';
import { pageOriginOf } from './page-origin.js';
import { BffError } from '../errors/bff-error.js';
import { hotCounter } from '../observability/metrics.js';
import type { BffOptions } from '../options.js';
import type { Caller, TokenRoute } from '../caller/caller.js';
import { createBffRuntime, type BffRuntime } from '../runtime.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { bffErrorHandler } from './error-handler.js';
import { originGuard } from './origin-guard.js';
import { readJsonObject } from '../http/request-body.js';
import { withinRequestDeadline } from './request-deadline.js';
import { respondToken } from './respond.js';
import { addTimingsRoute } from './timings-route.js';
import { requestContext } from './request-context.js';
import { activeTracer, inSpan, tracingLoaded, tracingSettled } from '../observability/tracing.js';
import { inServerSpan } from './trace-route.js';

const MAX_PRESENTED_TOKEN_LENGTH = 2048;

/** `dashboard` and `chart` of a token request: each absent, or an id (the browser never names a group). */
function requestedScope(body: Record<string, unknown> | undefined): TokenRequest {
  const { dashboard, chart } = body ?? {};
  if (dashboard !== undefined && !isDashboardId(dashboard))
    throw new BffError('bad_request', '"dashboard" must be a dashboard id: 1 to 128 of A-Z a-z 0-9 _ -');
  if (chart !== undefined && !isChartId(chart)) throw new BffError('bad_request', '"chart" must be a chart id: 1 to 128 of A-Z a-z 0-9 _ -');
  return { ...(dashboard !== undefined && { dashboard }), ...(chart !== undefined && { chart }) };
}

const SCOPE_FIELDS: readonly string[] = TOKEN_REQUEST_FIELDS;

/** `{}`, `{ dashboard, chart? }` or nothing: the browser never names a group, so any other field is a client bug. */
function tokenRequest(body: Record<string, unknown> | undefined): TokenRequest {
  for (const field in body) {
    if (!SCOPE_FIELDS.includes(field))
      throw new BffError('bad_request', 'the token request takes only "dashboard" and "chart": the customer comes from the session');
  }
  return requestedScope(body);
}

/** `{ token, dashboard?, chart? }`: the token the caller holds, and what it is for. */
function rotateRequest(body: Record<string, unknown> | undefined): { presented: string; scope: TokenRequest } {
  if (body === undefined) throw new BffError('bad_request', 'body must be {"token": "<the token you hold>"}');
  for (const field in body) {
    if (field !== 'token' && !SCOPE_FIELDS.includes(field))
      throw new BffError('bad_request', `unknown field "${field.slice(0, 50)}": the body is {"token": "…", "dashboard"?: "…", "chart"?: "…"}`);
  }
  const token = body.token;
  if (typeof token !== 'string' || token === '') throw new BffError('bad_request', '"token" must be a non-empty string');
  if (token.length > MAX_PRESENTED_TOKEN_LENGTH) throw new BffError('bad_request', `"token" is longer than ${MAX_PRESENTED_TOKEN_LENGTH} characters`);
  return { presented: token, scope: requestedScope(body) };
}

/** Builds the two token routes and the timings reports' route on an existing runtime. */
export function buildEmbedRoutes(runtime: BffRuntime, standalone: boolean): Hono {
  const routes = new Hono();
  // Mounted by createBffApp, the routes share its error handler (no second one to compose per request).
  if (standalone) {
    routes.onError(bffErrorHandler(runtime.logger, runtime.refusals));
    routes.use('*', requestContext(runtime.logger));
  }
  routes.use('*', originGuard(runtime.origin));

  const outcomes = (route: TokenRoute) => ({ ok: hotCounter(runtime.metrics.tokenRequests, route, 'ok'), metric: runtime.metrics.tokenRequests });
  const count = (route: TokenRoute, handler: (c: Context) => Promise<TokenResponse>) => {
    const { ok, metric } = outcomes(route);
    const answer = async (c: Context) => {
      try {
        const body = await handler(c);
        ok.inc();
        return respondToken(c, body);
      } catch (error) {
        metric.labels(route, error instanceof BffError ? error.code : 'internal').inc();
        throw error;
      }
    };
    return function countedTokenRoute(c: Context): Promise<Response> {
      if (!tracingSettled()) return tracingLoaded.then(() => countedTokenRoute(c));
      const tracer = activeTracer();
      return tracer === undefined ? answer(c) : inServerSpan(tracer, c, route, runtime.vendor.name, () => answer(c));
    };
  };

  // The adapter's work (`embed.vendor.token` / `.rotate`) is one span whatever the vendor: local signing (Metabase's, Explo's JWE) included.
  const vendorAttributes = { 'embed.vendor.name': runtime.vendor.name };

  /**
   * A token request from its caller to its answer: who is asking, its rate limit, then `answer`.
   * Each step answers at once when it can (a session verified before, a store in this process's
   * memory), so a returning caller is served without an await; a step that cannot is awaited.
   */
  const forCaller = (c: Context, route: TokenRoute, answer: (caller: Caller) => MaybePromise<TokenResponse>) =>
    withinRequestDeadline(
      andThen(
        inSpan('embed.session', {}, () => runtime.callerOf(c)),
        (caller) => andThen(runtime.rateLimit(caller.limitKeys[route], route), () => inSpan(`embed.vendor.${route}`, vendorAttributes, () => answer(caller))),
      ),
    );

  // The vendor's adapter answers both routes (for Explo's embed tokens a renewal is a new token, never a vendor rotation, §4).
  const { vendor } = runtime;
  routes.post(
    BFF_ROUTES.token,
    count('token', async (c) => {
      const scope = tokenRequest(await readJsonObject(c, runtime.bodyLimitBytes));
      vendor.checkScope?.(scope);
      return forCaller(c, 'token', (caller) => vendor.token(caller, scope, pageOriginOf(c)));
    }),
  );

  routes.post(
    BFF_ROUTES.rotate,
    count('rotate', async (c) => {
      const { presented, scope } = rotateRequest(await readJsonObject(c, runtime.bodyLimitBytes));
      vendor.checkScope?.(scope);
      return forCaller(c, 'rotate', (caller) => vendor.renew(caller, scope, pageOriginOf(c), presented));
    }),
  );
  addTimingsRoute(routes, runtime);
  return routes;
}

/**
 * The token routes (`POST /token`, `POST /token/rotate`) as a Hono sub-app to mount in your
 * own app, under `/embed` by convention. Carries its own error handler, request ids, logging and
 * `Cache-Control: no-store`. For health and metrics routes use `createBffApp`.
 *
 * @example
 * ```ts
 * import { Hono } from 'hono';
 * import { UserGroupClient } from '@embedded-dashboard/client';
 * import { createEmbedRoutes } from '@embedded-dashboard/bff';
 *
 * const app = new Hono();
 * app.route('/embed', createEmbedRoutes({
 *   upstream: new UserGroupClient({ baseUrl: process.env.VENDOR_URL!, apiToken: process.env.VENDOR_TOKEN! }),
 *   session: { secret: process.env.SESSION_SECRET!, cookie: 'session' },
 *   secrets: [process.env.VENDOR_TOKEN!],
 * }));
 * ```
 */
export function createEmbedRoutes(options: BffOptions): Hono {
  return buildEmbedRoutes(createBffRuntime(options), true);
}
