import type { Context } from 'hono';
import type { Span, Tracer } from '@opentelemetry/api';
import type { TokenRoute } from '../caller/caller.js';
import { BffError } from '../errors/bff-error.js';
import { requestHeader } from '../http/request-header.js';
import { otelApi } from '../observability/tracing.js';

/*
 * The server span of a token route (ARCHITECTURE §4.5), with the HTTP semantic conventions'
 * attribute names. The caller's W3C trace context (`traceparent`, `tracestate`) is continued
 * through the API's registered propagator; a header longer than any valid one is not even handed
 * to it, and the propagator itself ignores a malformed one (the span then starts a trace of its own).
 */

/** Longer than a version-00 `traceparent` (55 characters) leaves room for later versions' fields, not for a flood. */
const MAX_TRACEPARENT_LENGTH = 128;
/** W3C Trace Context: 32 members of at most 256 characters, and a vendor may cut it at 512. */
const MAX_TRACESTATE_LENGTH = 512;

const carrierGetter = {
  keys: () => ['traceparent', 'tracestate'],
  get(c: Context, name: string): string | undefined {
    const value = requestHeader(c, name);
    const limit = name === 'traceparent' ? MAX_TRACEPARENT_LENGTH : name === 'tracestate' ? MAX_TRACESTATE_LENGTH : 0;
    return value !== undefined && value.length <= limit ? value : undefined;
  },
};

/** Runs `answer` (the route's whole work) inside the server span of `route`, continuing the caller's trace. */
export async function inServerSpan(tracer: Tracer, c: Context, route: TokenRoute, vendor: string, answer: () => Promise<Response>): Promise<Response> {
  const { context, propagation, trace, SpanKind, SpanStatusCode, ROOT_CONTEXT } = otelApi();
  const parent = propagation.extract(ROOT_CONTEXT, c, carrierGetter);
  const url = new URL(c.req.url);
  // The path as mounted (`/embed/token`): a fixed route, never an id.
  const path = c.req.path;
  const span: Span = tracer.startSpan(
    `${c.req.method} ${path}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'http.request.method': c.req.method,
        'http.route': path,
        'url.path': path,
        'url.scheme': url.protocol.slice(0, -1),
        'server.address': url.hostname,
        'embed.route': route,
        'embed.vendor.name': vendor,
      },
    },
    parent,
  );
  try {
    const response = await context.with(trace.setSpan(parent, span), answer);
    span.setAttribute('http.response.status_code', response.status);
    return response;
  } catch (error) {
    const status = error instanceof BffError ? error.status : 500;
    span.setAttribute('http.response.status_code', status);
    span.setAttribute('error.type', error instanceof BffError ? error.code : 'internal');
    // HTTP semantic conventions: a server span is an error for 5xx only; a 4xx is the caller's.
    if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
}
