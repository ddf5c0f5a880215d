import { afterAll, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-node';
import { activeTracer, tracingLoaded } from './tracing.js';

/*
 * The tracer follows the application's registration whenever it happens: the API's global
 * provider is one proxy object before and after `register()`, so a tracer looked up before the
 * registration must not be remembered as "none" (a BFF that served one request before its SDK
 * started would otherwise never trace).
 */

afterAll(() => trace.disable());

it('has no tracer before the SDK is registered, the SDK tracer after, and none again once it is disabled', async () => {
  await tracingLoaded;
  trace.disable();
  expect(activeTracer()).toBeUndefined();
  expect(activeTracer()).toBeUndefined();
  trace.setGlobalTracerProvider(new BasicTracerProvider());
  const tracer = activeTracer();
  expect(tracer).toBeDefined();
  expect(activeTracer()).toBe(tracer);
  trace.disable();
  expect(activeTracer()).toBeUndefined();
});
