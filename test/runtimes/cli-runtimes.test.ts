import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readlinkSync, realpathSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { Redis } from 'ioredis';
import { BFF_LISTENING_PREFIX, EMULATOR_ADMIN_ROUTES, EMULATOR_LISTENING_PREFIX, type EmulatorStats, type FaultSettings } from '@embedded-dashboard/protocol';
import { startNodeProcess, type RunningProcess } from '../support/processes.js';
import { startRedisServer, type RedisServer } from '../support/redis-server.js';
import { redisServerTool } from '../support/tools.js';
import { DENO_PERMISSIONS, packageBin, runtimes } from './runtimes.js';

/**
 * One list of integration cases, run against the real CLIs under every supported runtime: the
 * emulator CLI, and the BFF CLI in front of it (tokens, rotation, refusals, metrics, JWKS
 * sessions, the Redis store, SIGTERM). Node runs the same list, so a difference is the runtime's.
 */

const API_KEY = 'dev-customer-key';
const SESSION_SECRET = 'runtime-cases-session-secret-0123456789abcdef';
const APP_ORIGIN = 'http://app.example.test';
const ISSUER = 'https://login.example.test';
// Only PATH: nothing of this process's environment (NODE_OPTIONS, CI, …) changes the CLIs.
const cleanEnv = { PATH: process.env.PATH };

const hs256 = (claims: JWTPayload, secret = SESSION_SECRET) =>
  new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('10m').sign(new TextEncoder().encode(secret));
const customer = (id: string) => ({ org_id: id, org_name: `Org ${id}`, embed_properties: { region: 'eu' } });

async function post(base: string, path: string, init: { session?: string; body?: string; headers?: Record<string, string> } = {}) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(init.session ? { authorization: `Bearer ${init.session}` } : {}),
      ...init.headers,
    },
    body: init.body ?? '{}',
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function emulatorStats(emulator: RunningProcess): Promise<EmulatorStats> {
  return (await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.stats}`)).json() as Promise<EmulatorStats>;
}

async function setFaults(emulator: RunningProcess, faults: FaultSettings): Promise<void> {
  const response = await fetch(`${emulator.url}${EMULATOR_ADMIN_ROUTES.faults}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(faults),
  });
  expect(response.status).toBe(200);
}

/** The vendor's get-or-create, a GET with a JSON body, sent by Node's own HTTP client. */
function getOrCreate(emulatorUrl: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(`${emulatorUrl}/api/user`, {
      method: 'GET',
      headers: { authorization: `Token ${API_KEY}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** Polls `check` until it holds: the CLIs write their log lines and reconnect in their own time. */
async function eventually<T>(read: () => T | Promise<T>, holds: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (holds(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A JWKS endpoint as an identity provider serves it, with the public half of one ES256 key. */
async function startJwksServer() {
  const { publicKey, privateKey } = await generateKeyPair('ES256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'runtime-cases', alg: 'ES256', use: 'sig' };
  const server: Server = createServer((req, res) => {
    res.writeHead(req.url === '/.well-known/jwks.json' ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/.well-known/jwks.json' ? { keys: [jwk] } : {}));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  const sign = (claims: JWTPayload, key = privateKey) =>
    new SignJWT(claims).setProtectedHeader({ alg: 'ES256', kid: 'runtime-cases' }).setIssuer(ISSUER).setExpirationTime('10m').sign(key);
  return { url, sign, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const redisTool = redisServerTool();

it('the README runs the BFF under Bun and Deno with the commands these cases run', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const bin = 'node_modules/@embedded-dashboard/bff/bin/embedded-dashboard-bff.js';
  expect(packageBin('bff').endsWith(bin)).toBe(true);
  expect(readme).toContain(`\nbun ${bin}\n`);
  expect(readme).toContain(`\ndeno run ${DENO_PERMISSIONS.join(' ')} ${bin}\n`);
});

describe.each(runtimes())('the CLIs under $name', (runtime) => {
  const started: RunningProcess[] = [];
  let emulator: RunningProcess;
  let bff: RunningProcess;

  const start = async (pkg: 'bff' | 'emulator', args: string[], env: Record<string, string>) => {
    const proc = await startNodeProcess(packageBin(pkg), args, {
      runtime: runtime.command,
      env: { ...cleanEnv, ...env },
      readyPrefix: pkg === 'bff' ? BFF_LISTENING_PREFIX : EMULATOR_LISTENING_PREFIX,
      timeoutMs: 30_000,
    });
    started.push(proc);
    return proc;
  };
  const bffEnv = () => ({
    EMBED_UPSTREAM_URL: emulator.url,
    EMBED_API_TOKEN: API_KEY,
    EMBED_PORT: '0',
    EMBED_ALLOWED_ORIGINS: APP_ORIGIN,
  });

  beforeAll(async () => {
    if (!runtime.available) return;
    emulator = await start('emulator', ['--port', '0', '--admin', '--rate-limit', '0'], {});
    bff = await start('bff', [], { ...bffEnv(), EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_METRICS_PORT: '0' });
  });
  afterAll(async () => {
    await Promise.all(started.map((proc) => proc.stop()));
  });

  it.skipIf(!runtime.available || !existsSync('/proc/self/exe'))('runs both CLIs in that runtime itself, not in a Node it starts', () => {
    const runtimeBinary = realpathSync(runtime.command[0]!);
    for (const proc of [emulator, bff]) expect(readlinkSync(`/proc/${proc.child.pid}/exe`)).toBe(runtimeBinary);
  });

  it.skipIf(!runtime.available)('emulator: answers a get-or-create sent as a GET with a JSON body, and refuses bad flags with exit 2', async () => {
    const input = { name: 'Direct', user_group_id: `direct-${runtime.name}`, mapping: {}, properties: { region: 'eu' } };
    const first = await getOrCreate(emulator.url, input);
    expect(first).toMatchObject({ status: 200, body: { success: 1, new_user_group: true, user_group: { provided_id: input.user_group_id, name: 'Direct' } } });
    const again = await getOrCreate(emulator.url, input);
    expect(again.body).toMatchObject({ success: 1, new_user_group: false });
    expect((again.body.user_group as { token: string }).token).toBe((first.body.user_group as { token: string }).token);

    const [command, ...args] = runtime.command;
    const bad = spawnSync(command!, [...args, packageBin('emulator'), '--port', 'eighty', '--nope'], { env: cleanEnv, encoding: 'utf8', timeout: 30_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('embedded-dashboard-emulator: --port must be an integer from 0 to 65535, got "eighty"');
    expect(bad.stderr).toContain('embedded-dashboard-emulator: unknown argument "--nope"; see --help');
  });

  it.skipIf(!runtime.available)('bff: hands a session its token through the vendor GET with a body, and rotates it', async () => {
    const before = await emulatorStats(emulator);
    const session = await hs256(customer(`token-${runtime.name}`));
    const first = await post(bff.url, '/embed/token', { session });
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-store');
    const { token } = first.json() as { token: string };
    expect(Object.keys(first.json()).sort()).toEqual(['expiresAt', 'serverTime', 'token']);
    expect((await post(bff.url, '/embed/token', { session })).json().token).toBe(token);

    const rotated = await post(bff.url, '/embed/token/rotate', { session, body: JSON.stringify({ token }) });
    expect(rotated.status).toBe(200);
    const fresh = rotated.json().token;
    expect(fresh).not.toBe(token);
    // Presenting the old token again: someone already rotated, so the current one comes back.
    expect((await post(bff.url, '/embed/token/rotate', { session, body: JSON.stringify({ token }) })).json().token).toBe(fresh);
    // Presenting the current token again inside the minimum interval: 429 with Retry-After.
    const throttled = await post(bff.url, '/embed/token/rotate', { session, body: JSON.stringify({ token: fresh }) });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    const after = await emulatorStats(emulator);
    expect(after.requests.getOrCreate - before.requests.getOrCreate).toBe(1);
    expect(after.requests.rotate - before.requests.rotate).toBe(1);
    expect((await fetch(`${bff.url}/readyz`)).status).toBe(200);
  });

  it.skipIf(!runtime.available)(
    'bff: refuses a foreign origin (403), a body that is not JSON (415) or too large (413), and a missing or forged session (401)',
    async () => {
      const session = await hs256(customer(`refusals-${runtime.name}`));
      const foreign = await post(bff.url, '/embed/token', { session, headers: { origin: 'https://evil.example' } });
      expect(foreign.status).toBe(403);
      expect(foreign.json()).toMatchObject({ error: { code: 'forbidden', retryable: false } });
      expect((await post(bff.url, '/embed/token', { session, headers: { origin: APP_ORIGIN } })).status).toBe(200);
      expect((await post(bff.url, '/embed/token', { session, headers: { 'content-type': 'text/plain' } })).status).toBe(415);
      expect((await post(bff.url, '/embed/token/rotate', { session, body: JSON.stringify({ token: 'x'.repeat(10_000) }) })).status).toBe(413);
      const missing = await post(bff.url, '/embed/token');
      expect(missing.status).toBe(401);
      expect(missing.json()).toMatchObject({ error: { code: 'unauthenticated' } });
      const forged = await post(bff.url, '/embed/token', { session: await hs256(customer('acme'), 'another-secret-of-at-least-32-bytes-0000') });
      expect(forged.status).toBe(401);
    },
  );

  it.skipIf(!runtime.available)('bff: serves Prometheus metrics on their own listener only', async () => {
    const line = await eventually(
      () => bff.output.find((l) => l.includes('"metrics listening"')),
      (l) => l !== undefined,
    );
    expect(line).toBeDefined();
    const metricsUrl = (JSON.parse(line!) as { url: string }).url;
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(new URL(metricsUrl).port).not.toBe(new URL(bff.url).port);
    const scraped = await fetch(metricsUrl);
    expect(scraped.status).toBe(200);
    expect(await scraped.text()).toMatch(/embed_bff_token_requests_total\{route="token",outcome="ok"\} [1-9]/);
    expect((await fetch(`${bff.url}/metrics`)).status).toBe(404);
  });

  it.skipIf(!runtime.available || !redisTool.available)(
    'bff: verifies sessions against a real JWKS server and keeps its entries in a real redis-server, riding out a Redis restart',
    async () => {
      const jwks = await startJwksServer();
      let redis: RedisServer | undefined;
      let client: Redis | undefined;
      try {
        redis = await startRedisServer(redisTool.path);
        const shared = await start('bff', [], { ...bffEnv(), EMBED_SESSION_JWKS_URL: jwks.url, EMBED_SESSION_ISSUER: ISSUER, EMBED_REDIS_URL: redis.url });
        const session = await jwks.sign(customer(`jwks-${runtime.name}`));
        const first = await post(shared.url, '/embed/token', { session });
        expect(first.status).toBe(200);
        const { token } = first.json() as { token: string };
        // A key the JWKS does not hold, and a session from another issuer, are refused.
        const { privateKey: stranger } = await generateKeyPair('ES256');
        expect((await post(shared.url, '/embed/token', { session: await jwks.sign(customer('acme'), stranger) })).status).toBe(401);
        expect((await post(shared.url, '/embed/token', { session: await hs256(customer('acme')) })).status).toBe(401);

        client = new Redis(redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
        const keys = await client.keys('*');
        expect(keys.length).toBeGreaterThan(0);
        expect(keys.join('\n')).not.toContain(API_KEY);
        expect(await fetch(`${shared.url}/readyz`).then((r) => r.json())).toEqual({ status: 'ready', store: 'ok' });
        client.disconnect();

        // Redis crashes: the BFF keeps answering the same token, and says it is not ready.
        await redis.stop();
        expect((await post(shared.url, '/embed/token', { session })).json().token).toBe(token);
        expect((await fetch(`${shared.url}/readyz`)).status).toBe(503);
        // Back, empty: the BFF reconnects by itself and is ready again.
        await redis.start();
        const ready = await eventually(
          () => fetch(`${shared.url}/readyz`).then((r) => r.status),
          (status) => status === 200,
          15_000,
        );
        expect(ready).toBe(200);
        expect((await post(shared.url, '/embed/token', { session })).status).toBe(200);
        expect(shared.output.join('\n')).not.toContain(API_KEY);
      } finally {
        client?.disconnect();
        await redis?.dispose();
        await jwks.close();
      }
    },
  );

  it.skipIf(!runtime.available)('bff: on SIGTERM finishes the request in flight, refuses new ones and exits 0', async () => {
    const before = await emulatorStats(emulator);
    await setFaults(emulator, { latencyMs: 800 });
    try {
      const slow = post(bff.url, '/embed/token', { session: await hs256(customer(`slow-${runtime.name}`)) });
      // SIGTERM only once the slow request is inside the BFF, waiting on the vendor.
      const stats = await eventually(
        () => emulatorStats(emulator),
        (s) => s.requests.getOrCreate > before.requests.getOrCreate,
      );
      expect(stats.requests.getOrCreate).toBe(before.requests.getOrCreate + 1);
      const exited = bff.stop(15_000);
      expect((await slow).status).toBe(200);
      expect(await exited).toBe(0);
      await expect(fetch(`${bff.url}/healthz`)).rejects.toThrow();
      expect(bff.output.some((line) => line.includes('"stopped"'))).toBe(true);
    } finally {
      await setFaults(emulator, {});
    }
  });
});
