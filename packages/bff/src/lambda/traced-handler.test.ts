import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-node';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { API_TOKEN, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { functionUrlEvent } from '../../test/support/lambda-events.js';
import { createLambdaHandler } from './index.js';

/**
 * Traces on Lambda: the application registers the SDK in the function's module scope (as the
 * BFF README shows for Node), and a function URL event carrying a `traceparent` gives the same
 * tree as a Node server (observability/tracing.emulator.test.ts), through the Lambda handler and
 * its Redis store.
 */

const redisTool = redisServerTool();
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_ID = '00f067aa0ba902b7';

describe.skipIf(!redisTool.available)('traces of the BFF as an AWS Lambda function, the OpenTelemetry SDK registered', () => {
  let redis: RedisServer;
  let emu: RunningEmulator;
  const exporter = new InMemorySpanExporter();
  const provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });

  beforeAll(async () => {
    provider.register();
    redis = await startRedisServer(redisTool.path);
    emu = await startEmulator({ port: 0, apiKeys: [{ token: API_TOKEN, environment: 'Customer' }] });
  });
  afterAll(async () => {
    await provider.shutdown();
    trace.disable();
    await emu?.close();
    await redis?.dispose();
  });

  it('a function URL event continues the caller’s trace: session, vendor token, the vendor call and its HTTP attempt beneath, nothing secret', async () => {
    const lambda = createLambdaHandler({
      env: {
        EMBED_UPSTREAM_URL: emu.url,
        EMBED_API_TOKEN: API_TOKEN,
        EMBED_SESSION_SECRET: SESSION_SECRET,
        EMBED_SESSION_COOKIE: '__Host-session',
        EMBED_REDIS_URL: redis.url,
        EMBED_UPSTREAM_RATE: '0',
      },
    });
    const orgId = 'traced-lambda';
    const jwt = await session({ org_id: orgId, org_name: 'Traced Org', embed_properties: { region: 'EU' } });
    const result = await lambda(
      functionUrlEvent({
        path: '/embed/token',
        body: '{}',
        cookies: [`__Host-session=${jwt}`],
        headers: { 'content-type': 'application/json', traceparent: `00-${TRACE_ID}-${PARENT_ID}-01` },
      }),
      {},
    );
    expect(result.statusCode).toBe(200);
    const { token } = JSON.parse(result.body) as { token: string };
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const byId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
    const one = (name: string): ReadableSpan => {
      const found = spans.filter((span) => span.name === name);
      expect(found, name).toHaveLength(1);
      return found[0]!;
    };
    const under = (span: ReadableSpan, ancestor: ReadableSpan): boolean => {
      for (let at = byId.get(span.parentSpanContext?.spanId ?? ''); at; at = byId.get(at.parentSpanContext?.spanId ?? '')) if (at === ancestor) return true;
      return false;
    };
    const server = one('POST /embed/token');
    expect([server.kind, server.spanContext().traceId, server.parentSpanContext?.spanId]).toEqual([SpanKind.SERVER, TRACE_ID, PARENT_ID]);
    for (const span of spans) expect(span.spanContext().traceId, span.name).toBe(TRACE_ID);
    for (const name of ['embed.session', 'embed.vendor.token', 'embed.vendor_call getOrCreate']) expect(under(one(name), server), name).toBe(true);
    expect(
      spans.some((span) => span.name.startsWith('embed.store') && under(span, server)),
      'a Redis store call under the request',
    ).toBe(true);
    const attempts = spans.filter((span) => span.kind === SpanKind.CLIENT);
    expect(attempts.length).toBeGreaterThan(0);
    for (const attempt of attempts) expect(byId.get(attempt.parentSpanContext?.spanId ?? '')?.name).toMatch(/^embed\.vendor_call /);
    const text = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    for (const secret of [token, jwt, SESSION_SECRET, API_TOKEN, orgId]) expect(text.includes(secret), secret).toBe(false);
  });
});
