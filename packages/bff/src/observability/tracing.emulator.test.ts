import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { NodeTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-node';
import { createNodeTransport, UserGroupClient, type Transport } from '@embedded-dashboard/client';
import { SupersetClient } from '@embedded-dashboard/client/superset';
import { startEmulator, startSupersetEmulator, type RunningEmulator, type RunningSupersetEmulator } from '@embedded-dashboard/emulator';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { metabaseVendor } from '../metabase/metabase-vendor.js';
import { supersetVendor } from '../superset/superset-vendor.js';
import { tracingLoaded } from './tracing.js';
import { tracingLoaded as clientTracingLoaded } from '../../../client/src/transport/traced.js';
import { API_TOKEN, captureLogs, SESSION_SECRET, session } from '../../test/support/fixtures.js';
import { socketBffs } from '../../test/support/socket-bffs.js';
import { PARENT_ID, TRACE_ID, TRACEPARENT } from '../../test/support/token-trace.js';

/*
 * Traces with the real OpenTelemetry SDK (NodeTracerProvider: AsyncLocalStorage context, W3C
 * propagator) exported over OTLP/HTTP (JSON) to a receiver on a real socket, across real BFFs on
 * real sockets in front of the emulator's Explo and Superset modes; then with no provider.
 */

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: Record<string, unknown> }[];
  status?: { code?: number };
}

/** The OTLP/HTTP receiver: every span of every JSON export, and the raw bodies for the leak scan. */
const received: OtlpSpan[] = [];
const bodies: string[] = [];
let receiver: Server;
let receiverUrl: string;
let provider: NodeTracerProvider;
let explo: RunningEmulator;
let superset: RunningSupersetEmulator;
const bffs = socketBffs();
/** The vendor requests' headers as the client's transport sent them. */
const sent: Record<string, string>[] = [];
const nodeTransport = createNodeTransport();
const recording: Transport = (request) => {
  sent.push({ ...request.headers });
  return nodeTransport(request);
};

const HOSTILE_ORG = 'LEAKCHECK-org-"><script>alert(1)</script>\u2028%00';
const SUPERSET_PASSWORD = 'LEAKCHECK-superset-password-7c1f';
const SUPERSET_DASHBOARD = '5b3c1a52-4f0e-4d8e-9c57-0d6f1c2a7e01';
/** Every session, token and guest token the run handled: none may appear in a span. */
const METABASE_SECRET = '5e1f'.repeat(16);
const secrets = new Set<string>([API_TOKEN, SESSION_SECRET, SUPERSET_PASSWORD, HOSTILE_ORG, METABASE_SECRET]);

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      const decoded = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of decoded.resourceSpans) for (const scope of resource.scopeSpans) received.push(...scope.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/v1/traces`;
  provider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(new OTLPTraceExporter({ url: receiverUrl }))] });
  provider.register();
  [explo, superset] = await Promise.all([
    startEmulator({ port: 0, host: '127.0.0.1', admin: true, apiKeys: [{ token: API_TOKEN, environment: 'Customer' }] }),
    startSupersetEmulator({ port: 0, host: '127.0.0.1', users: [{ username: 'embed-service', password: SUPERSET_PASSWORD, grantGuestToken: true }] }),
    tracingLoaded,
    clientTracingLoaded,
  ]);
});

afterEach(async () => {
  explo.emulator.setFaults({});
  await bffs.closeAll();
});

afterAll(async () => {
  nodeTransport.close();
  await provider.shutdown();
  await Promise.all([explo.close(), superset.close(), new Promise((resolve) => receiver.close(resolve))]);
});

/** An Explo BFF on a socket (its client with quick retries), and POST with a session. */
async function exploBff(overrides: Partial<BffAppOptions> = {}) {
  const client = new UserGroupClient({ baseUrl: explo.url, apiToken: API_TOKEN, transport: recording, backoff: { baseMs: 1, maxMs: 2 }, maxAttempts: 3 });
  const url = await bffs.serve(
    createBffApp({
      upstream: client,
      session: { secret: SESSION_SECRET },
      logger: captureLogs().logger,
      rateLimit: false,
      upstreamRatePerMinute: 600,
      ...overrides,
    }),
  );
  return { url, post: (path: string, jwt: string, body: unknown = {}, headers: Record<string, string> = {}) => post(`${url}${path}`, jwt, body, headers) };
}

async function post(url: string, jwt: string, body: unknown, headers: Record<string, string>) {
  secrets.add(jwt);
  // Node's fetch says `Sec-Fetch-Mode: cors`: as a page of the BFF's own origin would.
  const origin = new URL(url).origin;
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${jwt}`, origin, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { token?: string };
  if (json.token !== undefined) secrets.add(json.token);
  return { status: res.status, token: json.token };
}

/** Where the next test's spans start: everything ended so far exported first. */
async function mark(): Promise<number> {
  await provider.forceFlush();
  return received.length;
}

/** The spans exported since `from` (the provider flushed: each span ended before its request answered). */
async function exported(from: number): Promise<OtlpSpan[]> {
  await provider.forceFlush();
  return received.slice(from);
}

const attr = (span: OtlpSpan, key: string): unknown => {
  const value = span.attributes.find((a) => a.key === key)?.value;
  return value === undefined ? undefined : (value.stringValue ?? (value.intValue === undefined ? value.boolValue : Number(value.intValue)));
};
const named = (spans: OtlpSpan[], name: string) => spans.filter((s) => s.name === name);
const one = (spans: OtlpSpan[], name: string): OtlpSpan => {
  const found = named(spans, name);
  expect(found, name).toHaveLength(1);
  return found[0]!;
};
/** Whether `span` hangs (through any depth) under `ancestor`. */
const under = (spans: OtlpSpan[], span: OtlpSpan, ancestor: OtlpSpan): boolean => {
  for (let at: OtlpSpan | undefined = span; at !== undefined; at = spans.find((s) => s.spanId === at.parentSpanId))
    if (at.parentSpanId === ancestor.spanId) return true;
  return false;
};

const customer = (orgId: string) => ({ org_id: orgId, org_name: 'Customer', embed_properties: { region: 'EU' } });

const SERVER = 2;
const CLIENT = 3;

describe('traces with the OpenTelemetry SDK, exported over OTLP/HTTP', () => {
  it('a token request continues the caller’s traceparent: session, store, breaker, budget, the vendor call and its HTTP attempt under one server span, the trace passed on to the vendor', async () => {
    const bff = await exploBff();
    const from = await mark();
    sent.length = 0;
    const res = await bff.post('/embed/token', await session(customer(HOSTILE_ORG)), {}, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    const spans = await exported(from);
    const server = one(spans, 'POST /embed/token');
    expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, kind: SERVER });
    expect([
      attr(server, 'http.request.method'),
      attr(server, 'http.route'),
      attr(server, 'http.response.status_code'),
      attr(server, 'embed.vendor.name'),
    ]).toEqual(['POST', '/embed/token', 200, 'explo']);
    for (const span of spans) expect(span.traceId).toBe(TRACE_ID);
    const children = ['embed.session', 'embed.vendor.token', 'embed.vendor_call getOrCreate', 'embed.circuit_breaker', 'embed.vendor_budget'];
    for (const name of children) expect(under(spans, one(spans, name), server), name).toBe(true);
    expect(named(spans, 'embed.store get').length + named(spans, 'embed.store set').length).toBeGreaterThan(0);
    expect(attr(one(spans, 'embed.circuit_breaker'), 'embed.circuit_breaker.decision')).toBe('allow');
    expect(attr(one(spans, 'embed.vendor_budget'), 'embed.vendor_budget.decision')).toBe('admit');
    const call = one(spans, 'embed.vendor_call getOrCreate');
    const http = spans.filter((s) => s.kind === CLIENT);
    expect(http).toHaveLength(1);
    expect(http[0]!.parentSpanId).toBe(call.spanId);
    expect(http[0]!.attributes.map((a) => a.key).sort()).toEqual(
      [
        'embed.vendor.attempt',
        'embed.vendor.name',
        'embed.vendor.operation',
        'http.request.method',
        'http.response.status_code',
        'server.address',
        'server.port',
        'url.full',
      ].sort(),
    );
    expect([attr(http[0]!, 'embed.vendor.operation'), attr(http[0]!, 'http.response.status_code'), attr(http[0]!, 'url.full')]).toEqual([
      'getOrCreate',
      200,
      `${explo.url}/api/user`,
    ]);
    // The vendor request carried the trace on: its parent is the HTTP attempt's span.
    expect(sent.map((h) => h.traceparent)).toEqual([`00-${TRACE_ID}-${http[0]!.spanId}-01`]);

    const rotateFrom = await mark();
    explo.emulator.expireToken(res.token!);
    expect((await bff.post('/embed/token/rotate', await session(customer(HOSTILE_ORG)), { token: res.token })).status).toBe(200);
    const rotation = await exported(rotateFrom);
    const rotateServer = one(rotation, 'POST /embed/token/rotate');
    expect(rotateServer.parentSpanId ?? '').toBe('');
    expect(under(rotation, one(rotation, 'embed.vendor_call rotate'), rotateServer)).toBe(true);
  });

  it('a failing vendor: each HTTP attempt with its 5xx status and number, the call failed; then the open breaker’s refusal', async () => {
    const bff = await exploBff({ circuitBreaker: { failureThreshold: 1, openSeconds: 60 } });
    explo.emulator.setFaults({ serverErrorRate: 1 });
    const from = await mark();
    const jwt = await session(customer('failing-org'));
    expect((await bff.post('/embed/token', jwt)).status).toBeGreaterThanOrEqual(500);
    const spans = await exported(from);
    const attempts = spans.filter((s) => s.kind === CLIENT);
    expect(attempts.map((s) => [attr(s, 'embed.vendor.attempt'), attr(s, 'http.response.status_code'), attr(s, 'http.request.resend_count')])).toEqual([
      [1, 503, undefined],
      [2, 503, 1],
      [3, 503, 2],
    ]);
    const call = one(spans, 'embed.vendor_call getOrCreate');
    expect(call.status?.code).toBe(2);
    expect(attr(call, 'error.type')).toMatch(/^upstream_/);
    const server = one(spans, 'POST /embed/token');
    expect([attr(server, 'http.response.status_code'), server.status?.code]).toEqual([503, 2]);

    const openFrom = await mark();
    const refused = await bff.post('/embed/token', jwt);
    explo.emulator.setFaults({});
    expect(refused.status).toBe(503);
    const open = await exported(openFrom);
    expect(open.filter((s) => s.kind === CLIENT)).toEqual([]);
    const decision = one(open, 'embed.circuit_breaker');
    expect([attr(decision, 'embed.circuit_breaker.decision'), attr(decision, 'embed.circuit_breaker.circuit')]).toEqual(['refuse', 'customer']);
    expect(attr(one(open, 'POST /embed/token'), 'error.type')).toBe('upstream_unavailable');
  });

  it('Superset: the service sign-in (login, CSRF token) and the guest token, each an HTTP attempt under its vendor call', async () => {
    const client = new SupersetClient({ baseUrl: superset.url, username: 'embed-service', password: SUPERSET_PASSWORD, transport: recording });
    const url = await bffs.serve(
      createBffApp({
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        rateLimit: false,
        vendor: supersetVendor({ dashboards: [SUPERSET_DASHBOARD], rls: 'customer_id = {org_id}', client }),
      }),
    );
    const from = await mark();
    sent.length = 0;
    const res = await post(
      `${url}/embed/token`,
      await session({ org_id: HOSTILE_ORG.replace(/[\\\u0000-\u001f\u2028]/g, ''), sub: 'ada' }),
      { dashboard: SUPERSET_DASHBOARD },
      {},
    );
    expect(res.status).toBe(200);
    const spans = await exported(from);
    const server = one(spans, 'POST /embed/token');
    expect(attr(server, 'embed.vendor.name')).toBe('superset');
    const login = one(spans, 'embed.vendor_call supersetLogin');
    const guest = one(spans, 'embed.vendor_call supersetGuestToken');
    const attempts = spans.filter((s) => s.kind === CLIENT);
    expect(attempts.map((s) => [attr(s, 'embed.vendor.name'), attr(s, 'embed.vendor.operation'), attr(s, 'http.response.status_code')])).toEqual([
      ['superset', 'login', 200],
      ['superset', 'csrf_token', 200],
      ['superset', 'guest_token', 200],
    ]);
    expect(attempts.map((s) => s.parentSpanId)).toEqual([login.spanId, login.spanId, guest.spanId]);
    for (const span of [login, guest]) expect(under(spans, span, server)).toBe(true);
    expect(sent.map((h) => h.traceparent?.split('-')[1])).toEqual([server.traceId, server.traceId, server.traceId]);
  });

  it('Metabase: signed in the BFF, the server span with its session and store children, and no vendor call, breaker or budget', async () => {
    const url = await bffs.serve(
      createBffApp({
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        rateLimit: false,
        vendor: metabaseVendor({ secret: METABASE_SECRET, params: { customer_id: '{org_id}' }, dashboards: [7] }),
      }),
    );
    const from = await mark();
    sent.length = 0;
    const res = await post(`${url}/embed/token`, await session(customer('LEAKCHECK-metabase-org')), { dashboard: '7' }, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    const spans = await exported(from);
    const server = one(spans, 'POST /embed/token');
    expect(server).toMatchObject({ traceId: TRACE_ID, parentSpanId: PARENT_ID, kind: SERVER });
    expect(attr(server, 'embed.vendor.name')).toBe('metabase');
    for (const name of ['embed.session', 'embed.vendor.token']) expect(under(spans, one(spans, name), server), name).toBe(true);
    expect(named(spans, 'embed.store get').length + named(spans, 'embed.store set').length).toBeGreaterThan(0);
    expect(spans.filter((s) => /^embed\.(vendor_call|circuit_breaker|vendor_budget)/.test(s.name) || s.kind === CLIENT)).toEqual([]);
    expect(sent).toEqual([]);
  });

  it.each([
    ['malformed', 'not-a-traceparent'],
    ['version ff', `ff-${TRACE_ID}-${PARENT_ID}-01`],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-${PARENT_ID}-01`],
    ['upper-case hex', `00-${TRACE_ID.toUpperCase()}-${PARENT_ID}-01`],
    ['huge', `00-${TRACE_ID}-${PARENT_ID}-01-${'a'.repeat(7_000)}`],
  ])('a %s traceparent is ignored: the same answer, a trace of its own', async (_name, traceparent) => {
    const bff = await exploBff();
    const from = await mark();
    const res = await bff.post('/embed/token', await session(), {}, { traceparent, tracestate: `k=${'v'.repeat(4_000)}` });
    expect(res.status).toBe(200);
    const server = one(await exported(from), 'POST /embed/token');
    expect(server.traceId).not.toBe(TRACE_ID);
    expect(server.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(server.parentSpanId ?? '').toBe('');
  });

  it('no span holds a token, session, secret or the customer id, over every export of the run', () => {
    expect(bodies.length).toBeGreaterThan(0);
    const all = bodies.join('\n');
    for (const secret of secrets) expect(all.includes(secret), secret.slice(0, 24)).toBe(false);
    // The JSON encoder escapes: the customer id's plain prefix must not be there either.
    expect(all).not.toContain('LEAKCHECK');
    expect(received.some((s) => s.name === 'POST /embed/token')).toBe(true);
  });
});

describe('without a registered provider', () => {
  it('no spans, no trace passed on, the same answers', async () => {
    trace.disable();
    const bff = await exploBff();
    const from = await mark();
    sent.length = 0;
    const jwt = await session(customer('untraced'));
    const res = await bff.post('/embed/token', jwt, {}, { traceparent: TRACEPARENT });
    expect(res.status).toBe(200);
    explo.emulator.expireToken(res.token!);
    expect((await bff.post('/embed/token/rotate', jwt, { token: res.token })).status).toBe(200);
    expect(sent.length).toBe(2);
    expect(sent.every((h) => h.traceparent === undefined)).toBe(true);
    expect(await exported(from)).toEqual([]);
  });
});
