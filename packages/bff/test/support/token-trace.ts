import { expect } from 'vitest';

/** The caller's trace every trace test continues: W3C's example ids, and their `traceparent` header. */
export const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
export const PARENT_ID = '00f067aa0ba902b7';
export const TRACEPARENT = `00-${TRACE_ID}-${PARENT_ID}-01`;

/** A finished span as every trace test here reads it, whatever its exporter's shape. */
export interface SpanView {
  name: string;
  /** `server`, `client` or another kind (the SDK and OTLP number kinds differently). */
  kind: 'server' | 'client' | 'other';
  traceId: string;
  spanId: string;
  parentSpanId?: string | undefined;
}

/**
 * The tree one traced token request must give, in every runtime: the server span continues the
 * caller's `TRACEPARENT`, every span is of that trace, the session check,
 * the vendor token and the vendor call are beneath the server span, each HTTP attempt beneath a
 * vendor call; and `exported` (everything the spans carry, as text) holds none of `secrets`.
 * Returns the server span.
 */
export function expectTokenRequestTrace(spans: readonly SpanView[], exported: string, secrets: readonly string[]): SpanView {
  const byId = new Map(spans.map((span) => [span.spanId, span]));
  const one = (name: string): SpanView => {
    const found = spans.filter((span) => span.name === name);
    expect(found, name).toHaveLength(1);
    return found[0]!;
  };
  const under = (span: SpanView, ancestor: SpanView): boolean => {
    for (let at = byId.get(span.parentSpanId ?? ''); at; at = byId.get(at.parentSpanId ?? '')) if (at === ancestor) return true;
    return false;
  };
  const server = one('POST /embed/token');
  expect(server).toMatchObject({ kind: 'server', traceId: TRACE_ID, parentSpanId: PARENT_ID });
  for (const span of spans) expect(span.traceId, span.name).toBe(TRACE_ID);
  for (const name of ['embed.session', 'embed.vendor.token', 'embed.vendor_call getOrCreate']) expect(under(one(name), server), name).toBe(true);
  const attempts = spans.filter((span) => span.kind === 'client');
  expect(attempts.length, 'HTTP attempts').toBeGreaterThan(0);
  for (const attempt of attempts) expect(byId.get(attempt.parentSpanId ?? '')?.name, 'an HTTP attempt’s parent').toMatch(/^embed\.vendor_call /);
  for (const secret of secrets) expect(exported.includes(secret), secret).toBe(false);
  return server;
}
