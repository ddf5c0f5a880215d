import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpanKind } from '@opentelemetry/api';
import { SignJWT } from 'jose';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { expectTokenRequestTrace, TRACEPARENT, type SpanView } from '../../packages/bff/test/support/token-trace.js';
import { runtimes, type Runtime } from './runtimes.js';

/**
 * Traces under every runtime the BFF runs in: the application registers the OpenTelemetry SDK
 * (`fixtures/traced-token-request.mjs`, run by Node, Bun and Deno from the built packages) and
 * one token request gives the same tree as in Node's own test
 * (packages/bff/src/observability/tracing.emulator.test.ts): the caller's trace continued, the
 * session check, the vendor token, the vendor call and its HTTP attempt beneath, nothing secret.
 */

const SCRIPT = fileURLToPath(new URL('./fixtures/traced-token-request.mjs', import.meta.url));
const API_KEY = 'dev-customer-key';
const SESSION_SECRET = 'runtime-traces-session-secret-0123456789abcdef';

interface FinishedSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  attributes: Record<string, unknown>;
}

function runScript(runtime: Runtime, args: string[]): Promise<{ status: number; token: string; spans: FinishedSpan[] }> {
  const [command, ...prefix] = runtime.command;
  return new Promise((resolve, reject) => {
    execFile(command!, [...prefix, SCRIPT, ...args], { env: { PATH: process.env.PATH }, timeout: 60_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${runtime.name}: ${error.message}\n${stderr}`));
      else resolve(JSON.parse(stdout) as { status: number; token: string; spans: FinishedSpan[] });
    });
  });
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
});
afterAll(async () => {
  await emulator?.close();
});

describe.each(runtimes())('traces of the BFF under $name, the OpenTelemetry SDK registered by the application', (runtime) => {
  it.skipIf(!runtime.available)(
    'a token request continues the caller’s trace: session, vendor token, the vendor call and its HTTP attempt beneath, nothing secret',
    async () => {
      const orgId = `traced-${runtime.name}`;
      const jwt = await new SignJWT({ org_id: orgId, org_name: 'Traced Org', embed_properties: { region: 'EU' } })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(SESSION_SECRET));
      const { status, token, spans } = await runScript(runtime, [emulator.url, API_KEY, jwt, TRACEPARENT, SESSION_SECRET]);
      expect(status).toBe(200);
      const views: SpanView[] = spans.map((span) => ({
        ...span,
        kind: span.kind === SpanKind.SERVER ? 'server' : span.kind === SpanKind.CLIENT ? 'client' : 'other',
      }));
      const server = expectTokenRequestTrace(views, JSON.stringify(spans), [token, jwt, SESSION_SECRET, API_KEY, orgId]);
      expect(spans.find((span) => span.spanId === server.spanId)!.attributes).toMatchObject({
        'http.request.method': 'POST',
        'http.route': '/embed/token',
        'http.response.status_code': 200,
      });
    },
  );
});
