import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { startRedisServer, type RedisServer } from '../../../../test/support/redis-server.js';
import { redisServerTool } from '../../../../test/support/tools.js';
import { API_TOKEN, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { functionUrlEvent } from '../../test/support/lambda-events.js';
import { expectTokenRequestTrace, TRACEPARENT, type SpanView } from '../../test/support/token-trace.js';
import { createLambdaHandler } from './index.js';

/**
 * Traces on Lambda: the application registers the SDK in the function's module scope (as the
 * BFF README shows for Node), and a function URL event carrying a `traceparent` gives the same
 * tree as a Node server (observability/tracing.emulator.test.ts), through the Lambda handler and
 * its Redis store.
 */

const redisTool = redisServerTool();

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
        headers: { 'content-type': 'application/json', traceparent: TRACEPARENT },
      }),
      {},
    );
    expect(result.statusCode).toBe(200);
    const { token } = JSON.parse(result.body) as { token: string };
    await provider.forceFlush();
    const spans = exporter.getFinishedSpans();
    const views: SpanView[] = spans.map((span) => ({
      name: span.name,
      kind: span.kind === SpanKind.SERVER ? 'server' : span.kind === SpanKind.CLIENT ? 'client' : 'other',
      traceId: span.spanContext().traceId,
      spanId: span.spanContext().spanId,
      parentSpanId: span.parentSpanContext?.spanId,
    }));
    const exported = JSON.stringify(spans.map((span) => ({ name: span.name, attributes: span.attributes, events: span.events })));
    const server = expectTokenRequestTrace(views, exported, [token, jwt, SESSION_SECRET, API_TOKEN, orgId]);
    const under = (id: string | undefined): boolean =>
      id !== undefined && (id === server.spanId || under(views.find((span) => span.spanId === id)?.parentSpanId));
    expect(
      views.some((span) => span.name.startsWith('embed.store') && under(span.parentSpanId)),
      'a Redis store call under the request',
    ).toBe(true);
  });
});
