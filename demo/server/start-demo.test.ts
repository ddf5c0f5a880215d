import { afterEach, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from './start-demo.js';

let demo: RunningDemo | undefined;
afterEach(async () => {
  await demo?.close();
  demo = undefined;
});

const signIn = async (url: string, customer: string) => {
  const response = await fetch(`${url}/login?customer=${customer}`, { redirect: 'manual' });
  return (response.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '';
};

describe('startDemo', () => {
  it('composes the host app, the BFF and the emulator on two ports', async () => {
    demo = await startDemo({ port: 0, publicDir: false, tokenTtlSeconds: 120 });
    const { url, emulatorUrl } = demo;
    expect(new URL(url).port).not.toBe(new URL(emulatorUrl).port);
    const cookie = await signIn(url, 'acme');
    const json = { Cookie: cookie, 'Content-Type': 'application/json', Origin: url };

    const session = (await (await fetch(`${url}/api/session`, { headers: { Cookie: cookie } })).json()) as { srcTemplate: string };
    expect(session.srcTemplate).toBe(`http://localhost:${new URL(emulatorUrl).port}/iframe/{dashboard}`);

    const tokenResponse = await fetch(`${url}/embed/token`, { method: 'POST', headers: json, body: '{}' });
    expect(tokenResponse.status).toBe(200);
    const body = (await tokenResponse.json()) as { token: string; expiresAt: number; serverTime: number };
    expect(body.expiresAt - body.serverTime).toBeGreaterThan(100_000);
    expect(demo.emulator.resolveToken(body.token)?.name).toBe('Acme Corp');

    // Another customer's button cannot reach Acme's token.
    const globex = await signIn(url, 'globex');
    const other = await fetch(`${url}/api/token/expire`, { method: 'POST', headers: { ...json, Cookie: globex }, body: '{}' });
    expect(await other.json()).toEqual({ outcome: 'no-token' });
    expect(demo.emulator.resolveToken(body.token)).toBeDefined();

    const expire = () => fetch(`${url}/api/token/expire`, { method: 'POST', headers: json, body: '{}' }).then((r) => r.json());
    expect(await expire()).toEqual({ outcome: 'expired' });
    expect(demo.emulator.resolveToken(body.token)).toBeUndefined();
    expect(await expire()).toEqual({ outcome: 'already-refused' });

    await fetch(`${url}/api/vendor/outage`, { method: 'POST', headers: json, body: '{"on":true}' });
    const failing = await fetch(`${url}/embed/token/rotate`, { method: 'POST', headers: json, body: JSON.stringify({ token: body.token }) });
    expect(failing.status).toBeGreaterThanOrEqual(500);
    await fetch(`${url}/api/vendor/outage`, { method: 'POST', headers: json, body: '{"on":false}' });
    const rotated = await fetch(`${url}/embed/token/rotate`, { method: 'POST', headers: json, body: JSON.stringify({ token: body.token }) });
    expect(rotated.status).toBe(200);
    const { token } = (await rotated.json()) as { token: string };
    expect(token).not.toBe(body.token);
    expect(demo.emulator.resolveToken(token)?.providedId).toBe('acme');
  });

  it('answers single-chart embed tokens minted by the vendor at /embed-chart; /embed-jwt, which mints them itself, refuses a chart', async () => {
    demo = await startDemo({ port: 0, publicDir: false });
    const { url } = demo;
    const headers = { Cookie: await signIn(url, 'acme'), 'Content-Type': 'application/json', Origin: url };
    const session = (await (await fetch(`${url}/api/session`, { headers })).json()) as { chartTokenUrl: string | null; embedTokenUrl: string | null };
    expect(session).toMatchObject({ chartTokenUrl: '/embed-chart/token', embedTokenUrl: '/embed-jwt/token' });
    const ask = (path: string, body: object) => fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const chart = await ask('/embed-chart/token', { dashboard: 'sales-overview', chart: 'orders-by-month' });
    expect(chart.status).toBe(200);
    expect(demo.emulator.stats().requests.generateJwt).toBe(1);
    const { token } = (await chart.json()) as { token: string };
    const data = await fetch(`${demo.emulatorUrl}/iframe-data/sales-overview`, { headers: { Authorization: `Bearer ${token}`, 'Embed-Origin': url } });
    expect(((await data.json()) as { charts: { id: string }[] }).charts.map((c) => c.id)).toEqual(['orders-by-month']);
    const local = await ask('/embed-jwt/token', { dashboard: 'sales-overview', chart: 'orders-by-month' });
    expect(local.status).toBe(400);
    expect(JSON.stringify(await local.json())).toMatch(/EMBED_JWT_MINT=vendor/);
    expect((await ask('/embed-chart/token', { dashboard: 'payroll', chart: 'orders-by-month' })).status).toBe(403);
  });

  it('makes the dashboard re-read its data every dashboardRefreshSeconds (3 s unless told)', async () => {
    const refreshOf = async (running: RunningDemo) => {
      const page = await fetch(`${running.emulatorUrl}/iframe/sales-overview`);
      return (await page.text()).match(/"dataRefreshMs":(\d+)/)?.[1];
    };
    demo = await startDemo({ port: 0, publicDir: false });
    expect(await refreshOf(demo)).toBe('3000');
    await demo.close();
    demo = await startDemo({ port: 0, publicDir: false, dashboardRefreshSeconds: 1 });
    expect(await refreshOf(demo)).toBe('1000');
  });

  it('refuses bad options and a short session secret', async () => {
    await expect(startDemo({ port: 0, publicDir: false, sessionSecret: 'short' })).rejects.toThrow(/sessionSecret/);
    await expect(startDemo({ port: 0, publicDir: false, tokenTtlSeconds: -1 })).rejects.toThrow(/tokenTtlSeconds/);
    for (const dashboardRefreshSeconds of [0, -1, Number.NaN]) {
      await expect(startDemo({ port: 0, publicDir: false, dashboardRefreshSeconds })).rejects.toThrow(/dashboardRefreshSeconds/);
    }
  });

  it('explains a missing build instead of serving nothing', async () => {
    await expect(startDemo({ port: 0, publicDir: '/nonexistent/demo-pages' })).rejects.toThrow(/npm run build/);
  });
});
