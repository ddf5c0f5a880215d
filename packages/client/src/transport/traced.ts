import type * as OtelApi from '@opentelemetry/api';
import type { Transport, TransportRequest, TransportResponse } from './types.js';

/*
 * Each HTTP attempt to a vendor as an OpenTelemetry client span, and the W3C trace context passed
 * on in its headers through the API's registered propagator (`traceparent`, `tracestate`).
 * `@opentelemetry/api` is an optional peer dependency, found by a dynamic import that tolerates
 * its absence (the BFF's observability/tracing.ts explains why this form works in every runtime
 * and under wrangler's bundler); without it, or without a registered tracer provider, `send` is
 * the transport call and one cheap check. The span carries the HTTP semantic conventions'
 * attributes, the URL without credentials, query or fragment; never a header or a body.
 */

type Api = typeof OtelApi;

let api: Api | undefined;

/** Settles once the API has loaded or is known to be absent (never rejects). */
export const tracingLoaded: Promise<void> = import('@opentelemetry/api').then(
  (module: Api) => {
    if (typeof module.trace?.getTracerProvider === 'function' && typeof module.ProxyTracerProvider === 'function') api = module;
  },
  () => undefined,
);

const TRACER_NAME = '@embedded-dashboard/client';
let seenProvider: unknown;
let tracer: OtelApi.Tracer | undefined;

function activeTracer(): OtelApi.Tracer | undefined {
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

/** Which vendor call an attempt belongs to. */
export interface AttemptLabel {
  /** `explo`, `superset`. */
  vendor: string;
  /** The client's operation (`getOrCreate`, `login`, `csrf_token`, `guest_token`, …). */
  operation: string;
  /** 1 for the first attempt of a call, 2 for its first retry, … */
  attempt: number;
}

/** `url` as a span may show it: no user info, query or fragment (a vendor URL configured with a key in it stays out). */
function spanUrl(url: URL): string {
  return `${url.protocol}//${url.host}${url.pathname}`;
}

const headersSetter = {
  set(carrier: Record<string, string>, key: string, value: string) {
    carrier[key] = value;
  },
};

/** Sends `request` through `transport`, inside a client span when tracing is on. */
export function send(transport: Transport, request: TransportRequest, label: AttemptLabel): Promise<TransportResponse> {
  const t = activeTracer();
  if (t === undefined) return transport(request);
  const { context, propagation, trace, SpanKind, SpanStatusCode } = api!;
  let url: URL | undefined;
  try {
    url = new URL(request.url);
  } catch {
    // The transport refuses it; the span just has no URL.
  }
  const span = t.startSpan(request.method, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': request.method,
      ...(url && { 'url.full': spanUrl(url), 'server.address': url.hostname, 'server.port': Number(url.port || (url.protocol === 'https:' ? 443 : 80)) }),
      ...(label.attempt > 1 && { 'http.request.resend_count': label.attempt - 1 }),
      'embed.vendor.name': label.vendor,
      'embed.vendor.operation': label.operation,
      'embed.vendor.attempt': label.attempt,
    },
  });
  const active = trace.setSpan(context.active(), span);
  const headers = { ...request.headers };
  propagation.inject(active, headers, headersSetter);
  // A transport that throws at once rejects like one that fails later (the span still ends).
  return new Promise<TransportResponse>((resolve) => resolve(context.with(active, () => transport({ ...request, headers })))).then(
    (response) => {
      span.setAttribute('http.response.status_code', response.status);
      if (response.status >= 400) {
        span.setAttribute('error.type', String(response.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.end();
      return response;
    },
    (error: unknown) => {
      const code = (error as { code?: unknown } | null)?.code;
      const type =
        typeof code === 'string' && /^[a-z0-9_]{1,64}$/.test(code)
          ? code
          : error instanceof Error && /^[A-Za-z]{1,64}$/.test(error.name)
            ? error.name
            : '_OTHER';
      span.setAttribute('error.type', type);
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
      throw error;
    },
  );
}
