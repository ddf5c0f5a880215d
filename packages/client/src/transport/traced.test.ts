import { afterAll, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { send, tracingLoaded } from './traced.js';
import type { TransportRequest } from './types.js';

/*
 * An attempt is traced once the application registers its SDK, also when the client made calls
 * before that (the API's global provider is the same proxy object before and after `register()`).
 */

afterAll(() => trace.disable());

it('sends untraced before the SDK is registered, in a client span after', async () => {
  await tracingLoaded;
  trace.disable();
  const seen: TransportRequest[] = [];
  const transport = (request: TransportRequest) => {
    seen.push(request);
    return Promise.resolve({ status: 200, headers: {}, body: '{}' });
  };
  const request: TransportRequest = {
    method: 'POST',
    url: 'http://127.0.0.1:1/api/v2/user-group',
    headers: {},
    body: '{}',
    signal: new AbortController().signal,
  };
  const label = { vendor: 'explo', operation: 'getOrCreate', attempt: 1 };
  await send(transport, request, label);
  expect(seen[0]!.headers).toEqual({});

  const exporter = new InMemorySpanExporter();
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
  await send(transport, request, label);
  expect(exporter.getFinishedSpans().map((span) => [span.name, span.attributes['embed.vendor.operation']])).toEqual([['POST', 'getOrCreate']]);
});
