import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';
import { Miniflare, Response as MiniflareResponse, type Request as MiniflareRequest } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { expectTokenRequestTrace, TRACEPARENT, type SpanView } from '../../packages/bff/test/support/token-trace.js';
import { workerdTool } from '../support/tools.js';
import { bundleWorker } from '../support/worker-bundle.js';
import { COMPATIBILITY_DATE } from './harness.js';

/**
 * The BFF README's Workers tracing example, run as written in workerd (with `nodejs_compat`, as it
 * says): its provider, context manager and propagator registered in the Worker's module scope, its
 * fetch exporter sending OTLP/HTTP JSON to its collector (answered here: every outbound request of
 * the Worker passes through the test, the vendor's forwarded to the emulator). One token request
 * with a `traceparent` gives the BFF's tree as in Node (packages/bff/src/observability/
 * tracing.emulator.test.ts), exported before the isolate sleeps, and nothing secret.
 */

const workerd = workerdTool();
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const README = join(ROOT, 'packages/bff/README.md');
const COLLECTOR = 'https://otel-collector.example.com/v1/traces';
const API_KEY = 'dev-customer-key';
const SESSION_SECRET = 'workers-traces-session-secret-0123456789abcdef';
const SERVER = 2;
const CLIENT = 3;

/** The README's example under "**Cloudflare Workers**: register a provider": the first code block after that line. */
function readmeExample(): string {
  const text = readFileSync(README, 'utf8');
  const from = text.indexOf('**Cloudflare Workers**: register a provider');
  const open = text.indexOf('```ts typecheck\n', from);
  expect(from, 'the README’s Workers tracing section').toBeGreaterThan(0);
  return text.slice(open + '```ts typecheck\n'.length, text.indexOf('\n```', open));
}

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: Array<{ key: string; value: Record<string, unknown> }>;
}

describe.skipIf(!workerd.available)('the BFF README’s Workers tracing example, in workerd', () => {
  let dir: string;
  let emulator: RunningEmulator;
  let mf: Miniflare;
  let url: string;
  const exports: OtlpSpan[][] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'workers-traces-'));
    emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
    const entry = join(dir, 'worker.ts');
    writeFileSync(entry, readmeExample());
    const { code } = await bundleWorker(entry, { nodejsCompat: true });
    mf = new Miniflare({
      modules: [{ type: 'ESModule', path: 'worker.js', contents: code }],
      compatibilityDate: COMPATIBILITY_DATE,
      compatibilityFlags: ['nodejs_compat'],
      bindings: {
        EMBED_UPSTREAM_URL: emulator.url,
        EMBED_UPSTREAM_API: 'explo-customer',
        EMBED_API_TOKEN: API_KEY,
        EMBED_SESSION_SECRET: SESSION_SECRET,
        EMBED_UPSTREAM_RATE: '0',
        EMBED_RATE_LIMIT: '0',
      },
      durableObjects: { EMBED_STORE: { className: 'EmbedStore', useSQLite: true } },
      durableObjectsPersist: join(dir, 'do'),
      cf: false,
      host: '127.0.0.1',
      port: 0,
      handleRuntimeStdio: () => undefined,
      // Every request the Worker sends: the collector's answered here, the vendor's forwarded.
      outboundService: async (request: MiniflareRequest) => {
        if (request.url === COLLECTOR) {
          const body = (await request.json()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> };
          exports.push(body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)));
          return new MiniflareResponse('{}', { headers: { 'content-type': 'application/json' } });
        }
        const answer = await fetch(request.url, {
          method: request.method,
          headers: Object.fromEntries(request.headers),
          body: request.method === 'GET' ? undefined : await request.text(),
        });
        return new MiniflareResponse(await answer.text(), { status: answer.status, headers: Object.fromEntries(answer.headers) });
      },
    });
    url = (await mf.ready).origin;
  }, 120_000);
  afterAll(async () => {
    await mf?.dispose();
    await emulator?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // A test bound beyond the export poll's own 20 s, so a missing export fails as that poll, not as a timeout.
  it(
    'a token request continues the caller’s trace, its spans exported before the isolate sleeps: session, vendor token, the vendor call and its HTTP attempt beneath, nothing secret',
    { timeout: 40_000 },
    async () => {
      const jwt = await new SignJWT({ org_id: 'traced-worker', org_name: 'Traced Org', embed_properties: { region: 'EU' } })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('10m')
        .sign(new TextEncoder().encode(SESSION_SECRET));
      const response = await fetch(`${url}/embed/token`, {
        method: 'POST',
        headers: { authorization: `Bearer ${jwt}`, origin: url, 'content-type': 'application/json', traceparent: TRACEPARENT },
        body: '{}',
      });
      const { token } = (await response.json()) as { token: string };
      expect(response.status).toBe(200);
      await expect.poll(() => exports.flat().some((span) => span.name === 'POST /embed/token'), { timeout: 20_000 }).toBe(true);
      const spans = exports.flat();
      const views: SpanView[] = spans.map((span) => ({ ...span, kind: span.kind === SERVER ? 'server' : span.kind === CLIENT ? 'client' : 'other' }));
      expectTokenRequestTrace(views, JSON.stringify(spans), [token, jwt, SESSION_SECRET, API_KEY, 'traced-worker']);
    },
  );
});
