import type * as OtelApi from '@opentelemetry/api';
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import type { MaybePromise } from '../util/maybe-promise.js';

/*
 * OpenTelemetry through `@opentelemetry/api` alone, an optional peer dependency (ARCHITECTURE §4.5):
 * the application installs the API and registers an SDK, or does neither. The API is found by a
 * dynamic import at startup that tolerates its absence: Node, Bun, Deno and Lambda resolve it from
 * node_modules, and a bundler (wrangler's esbuild) bundles it when it is installed and leaves an
 * import whose failure is handled to fail at run time when it is not. The token routes wait for
 * the import to settle before their first request; whenever no tracer provider is registered,
 * every helper here runs its work unchanged after one
 * cheap check (`activeTracer()`), so an application without tracing pays nothing else. No span
 * carries a token, secret, session or customer id: only route, operation, vendor and outcome names.
 */

type Api = typeof OtelApi;

const TRACER_NAME = '@embedded-dashboard/bff';

let api: Api | undefined;
let settled = false;

/** Settles once the API has loaded or is known to be absent (never rejects). */
export const tracingLoaded: Promise<void> = import('@opentelemetry/api').then(
  (module: Api) => {
    // Only an API of the shape this module uses (1.x); anything else is as if absent.
    if (typeof module.trace?.getTracerProvider === 'function' && typeof module.ProxyTracerProvider === 'function') api = module;
    settled = true;
  },
  () => {
    settled = true;
  },
);

/** Whether `tracingLoaded` has settled: a request that arrives before (a process's first milliseconds) waits for it. */
export const tracingSettled = (): boolean => settled;

let seenProvider: unknown;
let tracer: Tracer | undefined;

/**
 * The BFF's tracer while the application has registered a tracer provider, else `undefined`
 * (the API absent, not loaded yet, or no provider: the API's own proxy without a delegate).
 */
export function activeTracer(): Tracer | undefined {
  if (api === undefined) return undefined;
  const provider = api.trace.getTracerProvider();
  // The API's global provider is one proxy before and after an application registers its SDK:
  // while it has no delegate, look again on every call (one cheap check), or a request served
  // before the registration would keep this process untraced for good.
  if (provider !== seenProvider || tracer === undefined) {
    seenProvider = provider;
    const unregistered = provider instanceof api.ProxyTracerProvider && provider.getDelegateTracer(TRACER_NAME) === undefined;
    tracer = unregistered ? undefined : provider.getTracer(TRACER_NAME);
  }
  return tracer;
}

/** The loaded API, for the modules here that need more than a tracer (only called after `activeTracer()` returned one). */
export const otelApi = (): Api => api!;

const failureType = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[a-z0-9_]{1,64}$/.test(code)) return code;
  return error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name) ? error.name : '_OTHER';
};

/** Marks `span` failed with `error.type` (a BFF error code or an error class name, never its message). */
export function recordFailure(span: Span, error: unknown): void {
  const type = failureType(error);
  span.setAttribute('error.type', type);
  span.setStatus({ code: otelApi().SpanStatusCode.ERROR, message: type });
}

/**
 * Runs `work` in a child span of the active one named `name`: the span is active while `work`
 * runs (its own children, and the vendor request's `traceparent`, hang under it), ends when its
 * result settles, and is marked failed with the error's type when it throws or rejects. Without
 * a tracer, `work` runs as it is, its value returned as it came (a value stays a value).
 */
export function inSpan<T>(name: string, attributes: Attributes, work: (span: Span | undefined) => MaybePromise<T>): MaybePromise<T> {
  const t = activeTracer();
  if (t === undefined) return work(undefined);
  const { context, trace } = otelApi();
  const span = t.startSpan(name, { attributes });
  const fail = (error: unknown): never => {
    recordFailure(span, error);
    span.end();
    throw error;
  };
  let result: MaybePromise<T>;
  try {
    result = context.with(trace.setSpan(context.active(), span), work, undefined, span);
  } catch (error) {
    return fail(error);
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then((value) => {
    span.end();
    return value;
  }, fail);
}

/** A span that has already happened (a decision with no duration of its own), under the active one. */
export function markSpan(name: string, attributes: Attributes): void {
  activeTracer()?.startSpan(name, { attributes }).end();
}
