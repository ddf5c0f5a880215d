import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { BFF_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { jwtDecrypt, jwtVerify } from 'jose';
import { assertFreshBuild } from '../../../../test/support/fresh-build.js';
import { startNodeProcess } from '../../../../test/support/processes.js';
import { scriptTool } from '../../../../test/support/tools.js';
import { API_TOKEN, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { startHostileSuperset } from '../../../client/test/support/hostile-superset.js';

const SUPERSET_DASHBOARD = '0f1e2d3c-4b5a-4978-8796-a5b4c3d2e1f0';

const packageDir = fileURLToPath(new URL('../../', import.meta.url));
const bin = join(packageDir, 'bin/embedded-dashboard-bff.js');
const cleanEnv = { PATH: process.env.PATH, NODE_OPTIONS: '' };

let emu: RunningEmulator;
beforeAll(async () => {
  assertFreshBuild('bff');
  emu = await startEmulator({ port: 0, admin: true, apiKeys: [{ token: API_TOKEN, environment: 'Customer' }], embedSecrets: [VENDOR_EMBED_SECRET] });
});
afterAll(() => emu?.close());

/** The embed secret the emulator (the vendor) holds, for EMBED_JWT_MINT=vendor: the BFF never sees its value. */
const VENDOR_EMBED_SECRET = { id: 'vendor-key-1', value: 'vendor-side-embed-secret-32bytes' };

const baseEnv = () => ({ ...cleanEnv, EMBED_UPSTREAM_URL: emu.url, EMBED_API_TOKEN: API_TOKEN, EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_PORT: '0' });

describe('embedded-dashboard-bff CLI', () => {
  it('exits 1 with one line per configuration problem, quoting no secret', () => {
    const run = spawnSync(process.execPath, [bin], {
      env: {
        ...cleanEnv,
        EMBED_API_TOKEN: 'LEAKCHECK-x',
        EMBED_SESSION_SECRET: 'LEAKCHECK-short-secret',
        EMBED_PORT: 'eighty',
        EMBED_EXPECT_ENVIRONMENT: 'Prod',
      },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(1);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      'config: EMBED_UPSTREAM_URL is required (the vendor base URL, e.g. http://127.0.0.1:8790)',
      'config: EMBED_SESSION_SECRET must be at least 32 bytes (value not shown)',
      'config: EMBED_EXPECT_ENVIRONMENT must be Customer or Testing (got "Prod")',
      'config: EMBED_PORT must be an integer from 0 to 65535 (got "eighty")',
    ]);
    expect(run.stdout + run.stderr).not.toContain('LEAKCHECK');
  });

  it('refuses a bad embed-token configuration at start, one line each, never quoting the key', () => {
    const key = 'LEAKCHECK-cli-embed-key-of-31-by';
    const run = spawnSync(process.execPath, [bin], {
      env: { ...baseEnv(), EMBED_JWT_KEY_ID: 'key 1', EMBED_JWT_KEY: key.slice(1), EMBED_DASHBOARDS: 'sales-overview,../x' },
      encoding: 'utf8',
      timeout: 15_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'config: EMBED_JWT_KEY_ID must be the embed secret id: 1 to 128 visible ASCII characters without spaces or ":"',
      'config: EMBED_JWT_KEY must be 32 bytes in UTF-8, the A256GCM key (value not shown)',
      'config: EMBED_DASHBOARDS must be a comma list of dashboard ids, 1 to 128 of A-Z a-z 0-9 _ - (not "../x")',
    ]);
    expect(run.stdout + run.stderr).not.toContain('LEAKCHECK');
  });

  it('answers embed tokens with EMBED_JWT_KEY_ID and EMBED_JWT_KEY, for the dashboards EMBED_DASHBOARDS lists', async () => {
    const key = 'cli-embed-key-of-exactly-32-byte';
    const proc = await startNodeProcess(bin, [], {
      env: { ...baseEnv(), EMBED_JWT_KEY_ID: 'key-1', EMBED_JWT_KEY: key, EMBED_DASHBOARDS: 'sales-overview' },
      readyPrefix: BFF_LISTENING_PREFIX,
    });
    try {
      const ask = async (dashboard: string) =>
        fetch(`${proc.url}/embed/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await session()}`, origin: proc.url },
          body: JSON.stringify({ dashboard }),
        });
      const ok = await ask('sales-overview');
      const { token } = (await ok.json()) as { token: string };
      const { payload } = await jwtDecrypt(token, new TextEncoder().encode(key));
      expect(payload).toMatchObject({ cst: 'acme', dsh: 'sales-overview', iss: `${proc.url}/` });
      expect((await ask('support-metrics')).status).toBe(403);
      expect(proc.output.join('\n')).not.toContain(key);
    } finally {
      await proc.stop();
      // The next test counts the emulator's calls from zero.
      emu.emulator.reset();
    }
  });

  it("answers the vendor's embed tokens with EMBED_JWT_MINT=vendor (no key in the BFF), one generate_jwt for many page views", async () => {
    const proc = await startNodeProcess(bin, [], {
      env: { ...baseEnv(), EMBED_UPSTREAM_API: 'explo-customer', EMBED_JWT_KEY_ID: VENDOR_EMBED_SECRET.id, EMBED_JWT_MINT: 'vendor' },
      readyPrefix: BFF_LISTENING_PREFIX,
    });
    try {
      const ask = async () => {
        const res = await fetch(`${proc.url}/embed/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await session()}`, origin: proc.url },
          body: '{"dashboard":"sales-overview"}',
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as { token: string }).token;
      };
      const token = await ask();
      const { payload } = await jwtDecrypt(token, new TextEncoder().encode(VENDOR_EMBED_SECRET.value));
      expect(payload).toMatchObject({ cst: 'acme', dsh: 'sales-overview', iss: `${proc.url}/` });
      for (let i = 0; i < 5; i++) expect(await ask()).toBe(token);
      expect(emu.emulator.stats().requests).toMatchObject({ getOrCreate: 1, generateJwt: 1 });
    } finally {
      await proc.stop();
      emu.emulator.reset();
    }
  });

  it('EMBED_VENDOR=superset: one line per problem and exit 1; from a --config file, signs guest tokens and sends Superset nothing', async () => {
    const superset = await startHostileSuperset({ dashboards: [SUPERSET_DASHBOARD] });
    const dir = mkdtempSync(join(tmpdir(), 'bff-cli-superset-'));
    try {
      const bad = spawnSync(process.execPath, [bin], {
        env: {
          ...cleanEnv,
          EMBED_VENDOR: 'superset',
          EMBED_UPSTREAM_URL: superset.url,
          EMBED_SESSION_SECRET: SESSION_SECRET,
          EMBED_SUPERSET_GUEST_SECRET: 'LEAKCHECK-short',
        },
        encoding: 'utf8',
        timeout: 15_000,
      });
      expect(bad.status).toBe(1);
      expect(bad.stderr.trim().split('\n')).toEqual([
        'config: EMBED_SUPERSET_GUEST_SECRET must be at least 32 bytes, as GUEST_TOKEN_JWT_SECRET in superset_config.py (value not shown)',
        "config: EMBED_SUPERSET_AUDIENCE is required with EMBED_SUPERSET_GUEST_SECRET: Superset's GUEST_TOKEN_JWT_AUDIENCE",
        "config: EMBED_DASHBOARDS is required with EMBED_VENDOR=superset: the embedded dashboards' UUIDs (Superset's Embed dialog), comma-separated",
        'config: EMBED_SUPERSET_RLS is required (e.g. customer_id = {org_id}): without it every guest sees every row; set EMBED_SUPERSET_RLS_DISABLED=true to embed without row-level security on purpose',
      ]);
      expect(bad.stdout + bad.stderr).not.toContain('LEAKCHECK');

      const guestSecret = 'LEAKCHECK-cli-guest-secret-0123456789abcdef';
      const file = join(dir, 'config.json');
      writeFileSync(
        file,
        JSON.stringify({
          EMBED_VENDOR: 'superset',
          EMBED_UPSTREAM_URL: superset.url,
          EMBED_DASHBOARDS: SUPERSET_DASHBOARD,
          EMBED_SUPERSET_RLS: 'customer_id = {org_id}',
          EMBED_SUPERSET_AUDIENCE: 'superset',
          EMBED_TOKEN_TTL: 120,
        }),
      );
      const proc = await startNodeProcess(bin, ['--config', file], {
        env: { ...cleanEnv, EMBED_SESSION_SECRET: SESSION_SECRET, EMBED_PORT: '0', EMBED_SUPERSET_GUEST_SECRET: guestSecret },
        readyPrefix: BFF_LISTENING_PREFIX,
      });
      try {
        const res = await fetch(`${proc.url}/embed/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${await session()}`, origin: proc.url },
          body: JSON.stringify({ dashboard: SUPERSET_DASHBOARD }),
        });
        expect(res.status).toBe(200);
        const { token } = (await res.json()) as { token: string };
        const { payload } = await jwtVerify(token, new TextEncoder().encode(guestSecret), { audience: 'superset' });
        expect(payload).toMatchObject({
          type: 'guest',
          rls_rules: [{ clause: "customer_id = 'acme'" }],
          resources: [{ type: 'dashboard', id: SUPERSET_DASHBOARD }],
        });
        expect(payload.exp! - payload.iat!).toBe(120);
        expect(superset.calls).toEqual({ login: 0, csrf: 0, guest: 0, other: 0 });
        expect(proc.output.join('\n')).not.toContain(guestSecret);
      } finally {
        await proc.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await superset.close();
    }
  });

  it('reads --config FILE and reports an unreadable one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-cli-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ EMBED_UPSTREAM_URL: 'http://127.0.0.1:1', EMBED_TOKEN_TTL: 'soon' }));
    const run = spawnSync(process.execPath, [bin, '--config', file], { env: cleanEnv, encoding: 'utf8', timeout: 15_000 });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('config: EMBED_TOKEN_TTL must be a whole number of seconds');
    expect(run.stderr).not.toContain('EMBED_UPSTREAM_URL is required');
    const missing = spawnSync(process.execPath, [bin, '--config', join(dir, 'nope.json')], { env: cleanEnv, encoding: 'utf8', timeout: 15_000 });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^config file: cannot read/);
  });

  it('prints the listening line with the real port, serves tokens, and stops gracefully on SIGTERM with a request in flight', async () => {
    const proc = await startNodeProcess(bin, [], {
      env: { ...baseEnv(), EMBED_LOG_LEVEL: 'debug', EMBED_METRICS_PORT: '0' },
      readyPrefix: BFF_LISTENING_PREFIX,
    });
    try {
      expect(proc.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(proc.url).not.toMatch(/:0$/);
      expect(proc.output).toContain(`${BFF_LISTENING_PREFIX}${proc.url}`);
      const jwt = await session();
      const ask = () =>
        fetch(`${proc.url}/embed/token`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` }, body: '{}' });
      const first = await ask();
      expect(first.status).toBe(200);
      expect(Object.keys(await first.json()).sort()).toEqual(['expiresAt', 'serverTime', 'token']);
      expect((await fetch(`${proc.url}/readyz`)).status).toBe(200);
      // Metrics only on their own loopback listener, announced in a log line (stdout is batched).
      expect((await fetch(`${proc.url}/metrics`)).status).toBe(404);
      const metricsLine = async () => proc.output.find((l) => l.includes('"metrics listening"'));
      for (let i = 0; i < 500 && (await metricsLine()) === undefined; i++) await new Promise((r) => setTimeout(r, 20));
      expect(await metricsLine(), 'the "metrics listening" log line within 10 s').toBeDefined();
      const metricsUrl = (JSON.parse((await metricsLine())!) as { url: string }).url;
      expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const scraped = await fetch(metricsUrl);
      expect(scraped.status).toBe(200);
      expect(await scraped.text()).toMatch(/embed_bff_token_requests_total\{route="token",outcome="ok"\} 1/);
      // A request the HTTP adapter refuses before the app (a bad Host) is still no-store.
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(new URL(proc.url).port), '127.0.0.1');
        let out = '';
        socket.on('data', (d) => (out += d.toString('latin1')));
        socket.on('close', () => resolve(out));
        socket.on('error', reject);
        socket.write('GET /healthz HTTP/1.1\r\nHost: a b\r\nconnection: close\r\n\r\n');
      });
      expect(raw).toMatch(/^HTTP\/1\.1 400/);
      expect(raw.toLowerCase()).toContain('cache-control: no-store');

      emu.emulator.setFaults({ latencyMs: 800 });
      const slow = fetch(`${proc.url}/embed/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await session({ org_id: 'slow', org_name: 'Slow', embed_properties: {} })}` },
        body: '{}',
      });
      // SIGTERM only once the slow request is inside the BFF, waiting on the vendor.
      for (let i = 0; i < 1_000 && emu.emulator.stats().requests.getOrCreate < 2; i++) await new Promise((r) => setTimeout(r, 10));
      expect(emu.emulator.stats().requests.getOrCreate).toBe(2);
      const exited = proc.stop(15_000);
      const inFlight = await slow;
      expect(inFlight.status).toBe(200);
      expect(await exited).toBe(0);
      await expect(ask()).rejects.toThrow();
      const lines = proc.output.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { msg: string; path?: string });
      expect(lines.filter((l) => l.msg === 'request' && l.path === '/embed/token')).toHaveLength(2);
      expect(lines.map((l) => l.msg)).toContain('stopped');
      expect(proc.output.join('\n')).not.toContain(API_TOKEN);
      expect(proc.output.join('\n')).not.toContain(jwt);
    } finally {
      emu.emulator.setFaults({});
      await proc.stop();
    }
  });

  it('with EMBED_UPSTREAM_API=explo-customer hands out and rotates tokens through the vendor Customer API', async () => {
    // A recording pass-through in front of the emulator shows which API the CLI really speaks.
    const seen: string[] = [];
    const proxy: Server = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers['explo-authorization'] === `Token ${API_TOKEN}`}`);
      const upstream = httpRequest(`${emu.url}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      req.pipe(upstream);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const proc = await startNodeProcess(bin, [], {
      env: { ...baseEnv(), EMBED_UPSTREAM_URL: proxyUrl, EMBED_UPSTREAM_API: 'explo-customer' },
      readyPrefix: BFF_LISTENING_PREFIX,
    });
    try {
      const jwt = await session({ org_id: 'explo-cli', org_name: 'Explo CLI', embed_properties: { region: 'EU' } });
      const call = async (path: string, body: unknown) =>
        fetch(`${proc.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${jwt}` },
          body: JSON.stringify(body),
        });
      const first = await call('/embed/token', {});
      expect(first.status).toBe(200);
      const t0 = ((await first.json()) as { token: string }).token;
      expect(emu.emulator.resolveToken(t0)).toMatchObject({ providedId: 'explo-cli', name: 'Explo CLI', properties: { region: 'EU' } });
      emu.emulator.expireToken(t0);
      const rotated = await call('/embed/token/rotate', { token: t0 });
      expect(rotated.status).toBe(200);
      const t1 = ((await rotated.json()) as { token: string }).token;
      expect(t1).not.toBe(t0);
      expect(emu.emulator.resolveToken(t1)?.providedId).toBe('explo-cli');
      expect(seen).toEqual(['POST /api/create_customer/ true', 'POST /api/refresh_customer_token/ true']);
      expect(proc.output.join('\n')).not.toContain(API_TOKEN);
    } finally {
      await proc.stop();
      await new Promise((resolve) => proxy.close(resolve));
    }
  });

  it('refuses EMBED_UPSTREAM_API values it does not know, and EMBED_EXPECT_ENVIRONMENT with the Customer API', () => {
    const run = (extra: Record<string, string>) => spawnSync(process.execPath, [bin], { env: { ...baseEnv(), ...extra }, encoding: 'utf8', timeout: 15_000 });
    const unknown = run({ EMBED_UPSTREAM_API: 'graphql' });
    expect(unknown.status).toBe(1);
    expect(unknown.stderr.trim()).toBe('config: EMBED_UPSTREAM_API must be user-group-service or explo-customer (got "graphql")');
    const both = run({ EMBED_UPSTREAM_API: 'explo-customer', EMBED_EXPECT_ENVIRONMENT: 'Customer' });
    expect(both.status).toBe(1);
    expect(both.stderr).toMatch(/^config: EMBED_EXPECT_ENVIRONMENT cannot be checked with EMBED_UPSTREAM_API=explo-customer/);
  });

  it.skipIf(!scriptTool().available)('provision draws its progress bar in place on a real terminal (script), and plain lines through a pipe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bff-provision-tty-'));
    const file = join(dir, 'groups.jsonl');
    writeFileSync(file, ['a', 'b', 'c'].map((id) => JSON.stringify({ user_group_id: `tty-${id}`, name: `TTY ${id}`, properties: {} })).join('\n'));
    // Not spawnSync: the emulator answering the CLI runs in this process's event loop.
    const run = (command: string, args: string[]) =>
      new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(command, args, { env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
        const out = { stdout: '', stderr: '' };
        child.stdout.on('data', (chunk: Buffer) => (out.stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (out.stderr += chunk.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
        child.once('close', (status) => {
          clearTimeout(timer);
          resolve({ status, ...out });
        });
      });
    const quote = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;
    const onTerminal = await run(scriptTool().path, ['-qfec', [process.execPath, bin, 'provision', file].map(quote).join(' '), '/dev/null']);
    expect(onTerminal.status).toBe(0);
    const screen = onTerminal.stdout;
    // One redraw per group, each from the line's start, erasing what a longer one left.
    expect(screen.match(/\r\[[# ]{30}\] \d\/3 /g)).toHaveLength(3);
    // The last bar is ended by a newline (the terminal turns it into CR LF) before the summary.
    expect(screen).toMatch(/\r\[#{30}\] 3\/3 [\d.]+\/s ETA 0 s\u001b\[K\r\nprovision: synced 3, already in sync 0, failed 0, bad lines 0\r\n$/);
    expect(screen).not.toContain('provision: 3/3');

    // The same through pipes (stderr is no terminal): plain lines, no bar, no carriage return.
    const piped = await run(process.execPath, [bin, 'provision', file]);
    expect(piped.status).toBe(0);
    expect(piped.stderr).toMatch(/^provision: 1\/3 .*ETA/m);
    expect(piped.stderr + piped.stdout).not.toMatch(/[\r[]/);
    rmSync(dir, { recursive: true, force: true });
  });
});
