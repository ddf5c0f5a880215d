import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { EMULATOR_LISTENING_PREFIX } from '@embedded-dashboard/protocol';
import { startNodeProcess, type RunningProcess } from '../../../../test/support/processes.js';

/** The built CLI: `npm test` builds before it runs the tests. */
const CLI = fileURLToPath(new URL('../../dist/cli/bin.js', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/embedded-dashboard-emulator.js', import.meta.url));

/** `body` is `any`: the tests assert on whichever shape comes back. */
function call(url: string, method: string, body: unknown, key = 'dev-customer-key'): Promise<{ status: number; body: any; retryAfter: string | undefined }> {
  return new Promise((resolve, reject) => {
    const text = JSON.stringify(body);
    const req = httpRequest(
      `${url}/api/user`,
      {
        method,
        headers: { Authorization: `Token ${key}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), retryAfter: res.headers['retry-after'] }),
        );
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

const start = (args: string[]) => startNodeProcess(CLI, args, { readyPrefix: EMULATOR_LISTENING_PREFIX });

let dir: string;
let processes: RunningProcess[] = [];
beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build -w @embedded-dashboard/emulator first`);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
});
afterEach(async () => {
  await Promise.all(processes.map((p) => p.stop()));
  processes = [];
  rmSync(dir, { recursive: true, force: true });
});

describe('embedded-dashboard-emulator CLI', () => {
  it('prints one listening line with the real port, then the keys, serves GET bodies, and exits 0 on SIGTERM', async () => {
    const emulator = await start(['--port', '0']);
    processes.push(emulator);
    expect(emulator.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(emulator.url).not.toMatch(/:0$/);
    const created = await call(emulator.url, 'GET', { name: 'Acme', user_group_id: 'acme', mapping: {}, properties: { region: 'EU' } });
    expect(created.body).toMatchObject({ success: 1, new_user_group: true });
    expect(emulator.output.filter((line) => line.startsWith(EMULATOR_LISTENING_PREFIX))).toHaveLength(1);
    expect(emulator.output.slice(1, 3)).toEqual(['api key (Customer): dev-customer-key', 'api key (Testing): dev-testing-key']);
    expect(await emulator.stop()).toBe(0);
  });

  it('keeps admin routes off unless --admin', async () => {
    const plain = await start(['--port', '0']);
    const admin = await start(['--port', '0', '--admin', '--api-key', 'k:Testing']);
    processes.push(plain, admin);
    expect((await fetch(`${plain.url}/__emulator/stats`)).status).toBe(404);
    const stats = await fetch(`${admin.url}/__emulator/stats`);
    expect(await stats.json()).toEqual({ requests: { getOrCreate: 0, update: 0, rotate: 0, generateJwt: 0 }, rejected: { rateLimited: 0 }, groups: 0 });
    expect(admin.output.slice(1)).toEqual(['api key (Testing): k']);
    expect((await call(admin.url, 'PUT', { name: 'x', user_group_id: 'x' })).status).toBe(401);
  });

  it('takes --embed-secret, prints its id (never its value), and generates embed tokens its dashboards accept', async () => {
    const value = 'cli-embed-secret-value-32-bytes!';
    const emulator = await start(['--port', '0', '--embed-secret', `key-1:${value}`]);
    processes.push(emulator);
    await vi.waitFor(() =>
      expect(emulator.output.slice(1)).toEqual([
        'api key (Customer): dev-customer-key',
        'api key (Testing): dev-testing-key',
        'embed secret (Customer): key-1',
      ]),
    );
    expect(emulator.output.join('\n')).not.toContain(value);
    const headers = { 'Content-Type': 'application/json', 'Explo-Authorization': 'Token dev-customer-key' };
    await fetch(`${emulator.url}/api/create_customer/`, { method: 'POST', headers, body: JSON.stringify({ provided_id: 'acme', name: 'Acme' }) });
    const generated = await fetch(`${emulator.url}/api/generate_jwt/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ provided_id: 'acme', embed_id: 'sales-overview', key_id: 'key-1' }),
    });
    const { jwt } = (await generated.json()) as { jwt: string };
    expect((await fetch(`${emulator.url}/iframe/${jwt}/production`)).status).toBe(200);
  });

  it("enforces the vendor's 180 a minute by default, and --rate-limit N per API key, with 429 and Retry-After", async () => {
    const faithful = await start(['--port', '0', '--admin']);
    const limited = await start(['--port', '0', '--admin', '--rate-limit', '2']);
    processes.push(faithful, limited);
    // A full bucket admits 180 at once and refills 3 a second while the burst is in flight.
    const startedAt = performance.now();
    const statuses = await Promise.all(
      Array.from({ length: 200 }, () => call(faithful.url, 'GET', { name: 'Acme', user_group_id: 'acme' }).then((r) => r.status)),
    );
    const refilled = Math.floor(((performance.now() - startedAt) / 1000) * 3);
    const admitted = statuses.filter((status) => status === 200).length;
    expect(admitted).toBeGreaterThanOrEqual(180);
    expect(admitted).toBeLessThanOrEqual(180 + refilled);
    expect(statuses.filter((status) => status === 429)).toHaveLength(200 - admitted);
    for (let i = 0; i < 2; i++) expect((await call(limited.url, 'GET', { name: 'Acme', user_group_id: 'acme' })).status).toBe(200);
    const refused = await call(limited.url, 'PUT', { name: 'Acme', user_group_id: 'acme' });
    expect(refused).toMatchObject({ status: 429, body: { success: 0, error: { code: 'rate_limited' } } });
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(30);
    const stats = await (await fetch(`${limited.url}/__emulator/stats`)).json();
    expect(stats).toMatchObject({ requests: { getOrCreate: 2, update: 1 }, rejected: { rateLimited: 1 } });
  });

  it('keeps groups across a restart with --data', async () => {
    const dataFile = join(dir, 'groups.json');
    const first = await start(['--port', '0', '--data', dataFile]);
    processes.push(first);
    const created = await call(first.url, 'GET', { name: 'Acme', user_group_id: 'acme' });
    const rotated = await call(first.url, 'POST', { current_token: created.body.user_group.token });
    expect(await first.stop()).toBe(0);
    const second = await start(['--port', '0', '--data', dataFile]);
    processes.push(second);
    const again = await call(second.url, 'GET', { name: 'Acme', user_group_id: 'acme' });
    expect(again.body).toMatchObject({ new_user_group: false, user_group: { token: rotated.body.user_group.token, team_id: created.body.user_group.team_id } });
  });

  it('loses nothing acknowledged and leaves a valid file when killed with SIGKILL mid-write', async () => {
    const dataFile = join(dir, 'groups.json');
    const first = await start(['--port', '0', '--data', dataFile]);
    processes.push(first);
    const acknowledged: string[] = [];
    const blob = 'x'.repeat(20_000);
    let i = 0;
    const writer = (async () => {
      for (;;) {
        const id = `g${i++}`;
        try {
          const response = await call(first.url, 'GET', { name: id, user_group_id: id, properties: { blob } });
          if (response.status === 200) acknowledged.push(response.body.user_group.token);
        } catch {
          return;
        }
      }
    })();
    while (acknowledged.length < 20) await new Promise((resolve) => setTimeout(resolve, 5));
    first.child.kill('SIGKILL');
    await writer;
    const second = await start(['--port', '0', '--data', dataFile, '--admin']);
    processes.push(second);
    const saved = JSON.parse(readFileSync(dataFile, 'utf8')) as { groups: { token: string }[] };
    const tokens = new Set(saved.groups.map((g) => g.token));
    for (const token of acknowledged) expect(tokens.has(token)).toBe(true);
  });

  it("acknowledges a group another request is still creating only once the creator's write is on disk (SIGKILL right after the first answer)", async () => {
    const dataFile = join(dir, 'groups.json');
    // A few MB of existing groups make each write take long enough for a second request to
    // find the new group while the creator's write is still on its way to disk.
    const blob = 'x'.repeat(2_000);
    const groups = Array.from({ length: 2_500 }, (_, n) => ({
      teamId: n + 1,
      environment: 'Customer',
      providedId: `seed${n}`,
      name: `seed${n}`,
      mapping: {},
      properties: { blob },
      token: `seed-token-${n}`,
    }));
    writeFileSync(dataFile, JSON.stringify({ version: 1, nextTeamId: groups.length + 1, groups, tokens: [] }));
    for (let round = 0; round < 3; round++) {
      const emulator = await start(['--port', '0', '--data', dataFile]);
      processes.push(emulator);
      const id = `race${round}`;
      const body = { name: id, user_group_id: id, properties: { region: 'EU' } };
      // Whichever answers first, creator or finder, has acknowledged the group with its token.
      const first = await Promise.race([call(emulator.url, 'GET', body), call(emulator.url, 'GET', body)]);
      emulator.child.kill('SIGKILL');
      expect(first.status).toBe(200);
      await new Promise((resolve) => emulator.child.once('exit', resolve));
      const again = await start(['--port', '0', '--data', dataFile]);
      processes.push(again);
      const after = await call(again.url, 'GET', body);
      expect(after.body).toMatchObject({ new_user_group: false, user_group: { token: first.body.user_group.token } });
      expect(await again.stop()).toBe(0);
    }
  });

  it('removes temp files an interrupted write left behind when it starts, and nothing else', async () => {
    const dataFile = join(dir, 'groups.json');
    writeFileSync(join(dir, '.groups.json.4242.7.tmp'), '{"version":1,"gro');
    writeFileSync(join(dir, '.other.json.4242.7.tmp'), 'not ours');
    writeFileSync(join(dir, 'notes.tmp'), 'not ours');
    const emulator = await start(['--port', '0', '--data', dataFile]);
    processes.push(emulator);
    expect(readdirSync(dir).sort()).toEqual(['.other.json.4242.7.tmp', 'notes.tmp']);
    await call(emulator.url, 'GET', { name: 'Acme', user_group_id: 'acme' });
    expect(await emulator.stop()).toBe(0);
    expect(readdirSync(dir).sort()).toEqual(['.other.json.4242.7.tmp', 'groups.json', 'notes.tmp']);
  });

  it('refuses to start on a corrupt data file with one clear line', () => {
    const dataFile = join(dir, 'groups.json');
    writeFileSync(dataFile, '{"version":1,"groups":[');
    const result = spawnSync(process.execPath, [CLI, '--port', '0', '--data', dataFile], { encoding: 'utf8', timeout: 15_000 });
    expect(result.status).toBe(1);
    expect(result.stdout).not.toContain(EMULATOR_LISTENING_PREFIX);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/data file .* is corrupt .* refusing to start/)]);
    expect(readFileSync(dataFile, 'utf8')).toBe('{"version":1,"groups":[');
  });

  it('exits non-zero with one line per bad flag', () => {
    const result = spawnSync(process.execPath, [CLI, '--port', 'abc', '--api-key', 'x:Prod', '--wat'], { encoding: 'utf8', timeout: 15_000 });
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'embedded-dashboard-emulator: unknown argument "--wat"; see --help',
      'embedded-dashboard-emulator: --port must be an integer from 0 to 65535, got "abc"',
      'embedded-dashboard-emulator: --api-key must be TOKEN:ENV with ENV one of Customer, Testing',
    ]);
  });

  it('prints usage for --help through the bin script', () => {
    const result = spawnSync(process.execPath, [BIN, '--help'], { encoding: 'utf8', timeout: 15_000 });
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('--api-key TOKEN:ENV');
    expect(readFileSync(BIN, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
  });
});
