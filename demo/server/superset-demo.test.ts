import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, jwtVerify } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { SAMPLE_SUPERSET_DASHBOARDS, SAMPLE_SUPERSET_DATASET } from '@embedded-dashboard/emulator';
import { SUPERSET_GUEST_TOKEN_HEADER } from '@embedded-dashboard/protocol';
import { startDemo, type RunningDemo } from './start-demo.js';
import { supersetFromManifest, type DemoSuperset } from './superset-demo.js';

/*
 * The demo's Superset choice (`/superset`): the page, and its BFF signing guest tokens with the
 * server's secret (no request to Superset: these run without one; test/e2e/superset.test.ts
 * embeds the real one).
 */

let demo: RunningDemo | undefined;
afterEach(async () => {
  await demo?.close();
  demo = undefined;
});

const SUPERSET: DemoSuperset = {
  url: 'http://127.0.0.1:9',
  dashboard: '23b1482b-795e-4683-9321-ab746499e695',
  guestToken: { secret: 'guest-secret-of-the-test-superset-0123456789', audience: 'embedded-dashboard-tests' },
};

const signIn = async (url: string, customer: string, vendor = '') => {
  const response = await fetch(`${url}/login?customer=${customer}${vendor}`, { redirect: 'manual' });
  return { cookie: (response.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '', location: response.headers.get('Location') };
};

describe('the demo with Apache Superset picked', () => {
  it('signs in to /superset, whose page embeds the configured Superset, and whose BFF signs each customer a guest token of its own rows', async () => {
    demo = await startDemo({ port: 0, publicDir: false, superset: SUPERSET });
    const { cookie, location } = await signIn(demo.url, 'acme', '&vendor=superset');
    expect(location).toBe('/superset');
    const page = await fetch(`${demo.url}/superset`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toBe("frame-ancestors 'none'; frame-src http://127.0.0.1:9");
    const html = await page.text();
    expect(html).toContain('protocol="superset"');
    expect(html).toContain(`dashboard="${SUPERSET.dashboard}"`);
    expect(html).toContain('src-template="http://127.0.0.1:9/embedded/{dashboard}"');
    expect(html).not.toContain(SUPERSET.guestToken.secret);
    const script = await fetch(`${demo.url}/superset/embedded-dashboard-superset.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain('embedded-dashboard');

    const token = (customerCookie: string, body: unknown = { dashboard: SUPERSET.dashboard }, origin = demo!.url) =>
      fetch(`${demo!.url}/embed-superset/token`, {
        method: 'POST',
        headers: { Cookie: customerCookie, 'Content-Type': 'application/json', Origin: origin },
        body: JSON.stringify(body),
      });
    const answer = await token(cookie);
    expect(answer.status).toBe(200);
    const { token: guest, expiresAt } = (await answer.json()) as { token: string; expiresAt: number };
    const { payload } = await jwtVerify(guest, new TextEncoder().encode(SUPERSET.guestToken.secret), { audience: SUPERSET.guestToken.audience });
    expect(payload).toMatchObject({
      type: 'guest',
      resources: [{ type: 'dashboard', id: SUPERSET.dashboard }],
      rls_rules: [{ clause: "customer_id = 'acme'" }],
    });
    expect(expiresAt).toBe(payload.exp! * 1000);

    const globex = await signIn(demo.url, 'globex', '&vendor=superset');
    expect(decodeJwt(((await (await token(globex.cookie)).json()) as { token: string }).token).rls_rules).toEqual([{ clause: "customer_id = 'globex'" }]);
    // No session, another page's origin, a dashboard the demo does not embed: refused.
    expect((await token('')).status).toBe(401);
    expect((await token(cookie, undefined, 'https://evil.example')).status).toBe(403);
    expect((await token(cookie, { dashboard: '00000000-0000-4000-8000-000000000000' })).status).toBe(403);
    // Signed out: back to the sign-in page.
    expect((await fetch(`${demo.url}/superset`, { redirect: 'manual' })).headers.get('Location')).toBe('/');
  });

  it('by default embeds the emulator’s Superset mode, whose chart data answers each guest token with its customer’s rows only', async () => {
    demo = await startDemo({ port: 0, publicDir: false });
    const { cookie } = await signIn(demo.url, 'globex', '&vendor=superset');
    const html = await (await fetch(`${demo.url}/superset`, { headers: { Cookie: cookie } })).text();
    expect(html).toContain(`src-template="${demo.supersetUrl}/embedded/{dashboard}"`);
    expect(html).toContain('emulator’s Superset mode');
    const dashboard = SAMPLE_SUPERSET_DASHBOARDS[0]!;
    const answer = await fetch(`${demo.url}/embed-superset/token`, {
      method: 'POST',
      headers: { Cookie: cookie, 'Content-Type': 'application/json', Origin: demo.url },
      body: JSON.stringify({ dashboard: dashboard.uuid }),
    });
    expect(answer.status).toBe(200);
    const { token } = (await answer.json()) as { token: string };
    const data = await fetch(`${demo.supersetUrl}/api/v1/chart/data`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [SUPERSET_GUEST_TOKEN_HEADER]: token },
      body: JSON.stringify({
        datasource: { id: SAMPLE_SUPERSET_DATASET.id, type: 'table' },
        queries: [{ columns: [...SAMPLE_SUPERSET_DATASET.columns], metrics: [], orderby: [], row_limit: 1000, filters: [], extras: { having: '', where: '' } }],
        form_data: { slice_id: dashboard.chartIds[0], dashboardId: dashboard.id, viz_type: 'table', datasource: `${SAMPLE_SUPERSET_DATASET.id}__table` },
        result_format: 'json',
        result_type: 'full',
      }),
    });
    expect(data.status).toBe(200);
    const rows = ((await data.json()) as { result: { data: { customer_id: string }[] }[] }).result[0]!.data;
    expect(rows.map((row) => row.customer_id)).toEqual(['globex', 'globex']);
  });

  it('with superset: false, /superset says how to start one, and its BFF is not mounted', async () => {
    demo = await startDemo({ port: 0, publicDir: false, superset: false });
    const { cookie } = await signIn(demo.url, 'acme', '&vendor=superset');
    const html = await (await fetch(`${demo.url}/superset`, { headers: { Cookie: cookie } })).text();
    expect(html).toContain('npm run superset');
    expect(html).not.toContain('<embedded-dashboard');
    const answer = await fetch(`${demo.url}/embed-superset/token`, {
      method: 'POST',
      headers: { Cookie: cookie, Origin: demo.url, 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(answer.status).toBe(404);
  });

  it('reads npm run superset’s manifest, and refuses one that is missing, malformed or not a manifest', () => {
    const dir = mkdtempSync(join(tmpdir(), 'demo-superset-'));
    try {
      const path = join(dir, 'manifest.json');
      writeFileSync(
        path,
        JSON.stringify({
          url: SUPERSET.url,
          dashboards: { sales: { uuid: SUPERSET.dashboard } },
          guestToken: { ...SUPERSET.guestToken, lifetimeSeconds: 300 },
        }),
      );
      expect(supersetFromManifest(path)).toEqual(SUPERSET);
      expect(() => supersetFromManifest(join(dir, 'absent.json'))).toThrow(/not a readable manifest/);
      writeFileSync(path, '{"url":');
      expect(() => supersetFromManifest(path)).toThrow(/not a readable manifest/);
      writeFileSync(path, JSON.stringify({ url: SUPERSET.url }));
      expect(() => supersetFromManifest(path)).toThrow(/lacks url, dashboards.sales.uuid or guestToken/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
