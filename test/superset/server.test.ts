import { describe, expect, inject, it } from 'vitest';
import { supersetTool } from '../support/superset.js';

const manifest = inject('superset');
if (!manifest) console.warn('*** SKIPPING test/superset/server.test.ts: no Superset (see test/support/superset.ts) ***');

describe.skipIf(!manifest)('the test Superset (test/support/superset)', () => {
  it('is the pinned release, on loopback, with what the manifest says provisioned', async () => {
    const m = manifest!;
    expect(m.version).toBe('6.1.0');
    expect(new URL(m.url).hostname).toBe('127.0.0.1');
    expect((await fetch(`${m.url}/health`)).status).toBe(200);
    expect(m.dashboards.sales.uuid).not.toBe(m.dashboards.restricted.uuid);
    expect(new Set(m.rows.map((row) => row.customer_id)).size).toBeGreaterThanOrEqual(3);
    expect(m.servicePermissions).toEqual(['can_grant_guest_token on SecurityRestApi', 'can_read on SecurityRestApi']);
    expect(m.guestPermissions).toContain('can_read on Dashboard');
    // An anonymous visitor gets nothing: the Public role is empty (PUBLIC_ROLE_LIKE = None).
    expect((await fetch(`${m.url}/api/v1/dashboard/${m.dashboards.sales.id}`)).status).toBe(401);
  });
});

// A Superset of its own stopped and started again (connections refused while stopped; the same
// address, dashboards and service account after start()) is checked on the one restart of
// test/e2e/superset-restart.test.ts, which the three engines watch: not a second Superset here.

describe('without a Superset', () => {
  const withEnv = <T>(env: Record<string, string | undefined>, run: () => T): T => {
    const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
    Object.assign(process.env, env);
    for (const [key, value] of Object.entries(env)) if (value === undefined) delete process.env[key];
    try {
      return run();
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  };
  const absent = { EMBED_SUPERSET_VENV: '/nonexistent/superset-venv', EMBED_SUPERSET_MANIFEST: undefined };

  it('fails in CI (EMBED_REQUIRE_TOOLS=1), naming the venv and how to install it', () => {
    expect(() => withEnv({ ...absent, EMBED_REQUIRE_TOOLS: '1' }, supersetTool)).toThrow(
      /not found in \/nonexistent\/superset-venv.*required in CI.*requirements\.txt/,
    );
  });

  it('skips loudly elsewhere', () => {
    const warnings: string[] = [];
    const warn = console.warn;
    console.warn = (message: string) => void warnings.push(message);
    try {
      const tool = withEnv({ ...absent, EMBED_REQUIRE_TOOLS: undefined, CI: undefined }, supersetTool);
      expect(tool.available).toBe(false);
    } finally {
      console.warn = warn;
    }
    expect(warnings.join('\n')).toMatch(/\*\*\* SKIPPING Superset tests/);
  });

  it('npm run superset refuses unknown options and a missing venv, one line, exit 1', async () => {
    const { spawnSync } = await import('node:child_process');
    const script = new URL('../../scripts/superset.mjs', import.meta.url).pathname;
    const unknown = spawnSync(process.execPath, [script, '--bogus', 'x'], { encoding: 'utf8', timeout: 20_000 });
    expect([unknown.status, unknown.stderr.trim()]).toEqual([1, 'superset: unknown or incomplete option --bogus (see --help)']);
    const incomplete = spawnSync(process.execPath, [script, '--port'], { encoding: 'utf8', timeout: 20_000 });
    expect(incomplete.status).toBe(1);
    const missing = spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { ...process.env, EMBED_SUPERSET_VENV: '/nonexistent/superset-venv' },
    });
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/no Superset venv at \/nonexistent\/superset-venv/);
  });
});
