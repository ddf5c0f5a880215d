import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { redisServerTool } from '../support/tools.js';
import { emulatorStats, readiness, requestToken, sessionFor, startFleet, type Fleet } from './fleet.js';

const tool = redisServerTool();
const CLI = fileURLToPath(new URL('../../packages/bff/bin/embedded-dashboard-bff.js', import.meta.url));

/** The lines a session of `sessionFor(id)` matches: same name and properties. */
const line = (id: string) => JSON.stringify({ user_group_id: id, name: `Org ${id}`, properties: { region: 'eu', plan: 'pro' } });

function provision(fleet: Fleet, args: string[], stdin?: string): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'provision', ...args], {
      env: {
        ...process.env,
        EMBED_REDIS_URL: fleet.redis.url,
        EMBED_UPSTREAM_URL: fleet.emulator.url,
        EMBED_API_TOKEN: 'dev-customer-key',
        EMBED_UPSTREAM_RATE: '1500',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, out, err }));
    child.stdin.end(stdin ?? '');
  });
}

describe.skipIf(!tool.available)('embedded-dashboard-bff provision', { timeout: 60_000 }, () => {
  let fleet: Fleet;
  let dir: string;
  beforeAll(async () => {
    fleet = await startFleet(tool.path);
    await vi.waitFor(async () => expect(await Promise.all(fleet.bffs.map(readiness))).toEqual([200, 200]), { timeout: 15_000 });
    dir = mkdtempSync(join(tmpdir(), 'provision-'));
  }, 60_000);
  afterAll(async () => {
    await fleet?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('creates every good line, reports every bad one by line number, exits 1, and warms the store so first visits call no vendor', async () => {
    const file = join(dir, 'groups.jsonl');
    const good = Array.from({ length: 12 }, (_, i) => `prov-${i}`);
    const lines = [
      ...good.slice(0, 6).map(line),
      '{"user_group_id":"x"}',
      'not json',
      '',
      ...good.slice(6).map(line),
      '{"user_group_id":"y","name":"Y","properties":{},"extra":1}',
    ];
    writeFileSync(file, `${lines.join('\n')}\n`);

    const dry = await provision(fleet, [file, '--dry-run']);
    expect(dry.out).toContain('provision: would sync 12, already in sync 0, failed 0, bad lines 3');
    expect((await emulatorStats(fleet.emulator)).getOrCreate).toBe(0);

    const first = await provision(fleet, [file]);
    expect(first.code).toBe(1);
    expect(first.out).toContain('provision: synced 12, already in sync 0, failed 0, bad lines 3');
    expect(first.err).toContain('provision: line 7: name must be a non-blank string');
    expect(first.err).toContain('provision: line 8: not JSON');
    expect(first.err).toContain('provision: line 16: unknown field "extra"');
    expect(first.err).toMatch(/provision: 12\/12 [\d.]+\/s ETA 0 s/);
    const afterFirst = await emulatorStats(fleet.emulator);
    expect(afterFirst.getOrCreate).toBe(12);

    // Resumable: a rerun finds them in sync and calls nothing.
    const again = await provision(fleet, ['-'], good.map(line).join('\n'));
    expect(again.code).toBe(0);
    expect(again.out).toContain('provision: synced 0, already in sync 12, failed 0, bad lines 0');

    // The warmed store serves first visits through both BFF processes without a vendor call.
    const answers = await Promise.all(good.map(async (id, i) => requestToken(fleet.bffs[i % 2]!, await sessionFor(id))));
    expect(answers.map((a) => a.status)).toEqual(Array(12).fill(200));
    expect(await emulatorStats(fleet.emulator)).toEqual(afterFirst);
  });

  it('refuses to run without a file', async () => {
    const none = await provision(fleet, []);
    expect(none.code).toBe(2);
    expect(none.err).toContain('usage: embedded-dashboard-bff provision FILE|- [--dry-run]');
  });
});
