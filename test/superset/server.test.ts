import { describe, expect, inject, it } from 'vitest';
import { startSuperset, supersetTool } from '../support/superset.js';

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

describe.skipIf(!manifest)('a Superset of its own, stopped and started again', () => {
  it('refuses connections while stopped and serves the same dashboards and users after start()', async () => {
    const server = await startSuperset(supersetTool().python || `${process.env.EMBED_SUPERSET_VENV ?? ''}/bin/python`);
    try {
      const before = server.manifest;
      const login = () =>
        fetch(`${server.url}/api/v1/security/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ username: before.serviceAccount.username, password: before.serviceAccount.password, provider: 'db' }),
        });
      expect((await login()).status).toBe(200);
      await server.stop();
      await expect(fetch(`${server.url}/health`)).rejects.toThrow();
      await server.start();
      expect(server.url).toBe(before.url);
      expect(server.manifest.dashboards).toEqual(before.dashboards);
      expect((await login()).status).toBe(200);
    } finally {
      await server.dispose();
    }
  }, 300_000);
});
