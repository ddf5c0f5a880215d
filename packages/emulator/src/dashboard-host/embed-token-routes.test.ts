import { CompactEncrypt } from 'jose';
import { describe, expect, it } from 'vitest';
import type { ExploEmbedClaims } from '@embedded-dashboard/protocol';
import { createEmulator } from '../emulator.js';
import { CUSTOMER_KEY } from '../../test/support/call-api.js';
import { pageConfigOf } from '../../test/support/page-config.js';

const VALUE = 'v'.repeat(32);
const HOST = 'http://localhost:5174';
let now = 1_790_000_000_000;
const exp = () => Math.floor(now / 1000) + 600;

async function setup() {
  const emulator = createEmulator({ now: () => now, admin: true, embedSecrets: [{ id: 'key-1', value: VALUE }] });
  const headers = { 'Content-Type': 'application/json', 'Explo-Authorization': `Token ${CUSTOMER_KEY}` };
  await emulator.app.request('/api/create_customer/', {
    method: 'POST',
    headers,
    body: JSON.stringify({ provided_id: 'acme', name: 'Acme Corp', properties: { region: 'EU' } }),
  });
  const mint = (claims: Partial<ExploEmbedClaims> & Record<string, unknown> = {}, kid = 'key-1', value = VALUE) =>
    new CompactEncrypt(new TextEncoder().encode(JSON.stringify({ cst: 'acme', dsh: 'sales-overview', exp: exp(), iss: `${HOST}/`, ...claims })))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM', kid })
      .encrypt(new TextEncoder().encode(value));
  const frame = (path: string, headers: Record<string, string> = { 'Sec-Fetch-Dest': 'iframe', Referer: `${HOST}/app` }) =>
    emulator.app.request(path, { headers });
  const data = (jwt: string, dashboard = 'sales-overview', origin: string | null = HOST) =>
    emulator.app.request(`/iframe-data/${dashboard}`, { headers: { Authorization: `Bearer ${jwt}`, ...(origin !== null && { 'Embed-Origin': origin }) } });
  return { emulator, mint, frame, data };
}

describe('GET /iframe/<jwt>/<environment> (an embed token where the dashboard id and customer token go)', () => {
  it("bakes the dashboard's layout into the page, and a single-chart token's (also expired) is that chart's alone", async () => {
    const { mint, frame } = await setup();
    const charts = async (jwt: string) => {
      const layout = pageConfigOf(await (await frame(`/iframe/${jwt}`)).text()).layout as { charts: { id: string }[]; kpis: unknown[]; chart?: string };
      return { ids: layout.charts.map((c) => c.id), kpis: layout.kpis.length, chart: layout.chart };
    };
    expect(await charts(await mint())).toEqual({ ids: ['revenue-by-month', 'orders-by-month'], kpis: 3, chart: undefined });
    expect(await charts(await mint({ cht: 'orders-by-month' }))).toEqual({ ids: ['orders-by-month'], kpis: 0, chart: 'orders-by-month' });
    now += 3_600_000;
    expect(await charts(await mint({ cht: 'orders-by-month', exp: Math.floor(now / 1000) - 1 }))).toEqual({
      ids: ['orders-by-month'],
      kpis: 0,
      chart: 'orders-by-month',
    });
  });

  it.each([
    ['', '../iframe-data/sales-overview'],
    ['/', '../../iframe-data/sales-overview'],
    ['/production', '../../iframe-data/sales-overview'],
    ['/production/', '../../../iframe-data/sales-overview'],
  ])("serves /iframe/<jwt>%s as the vendor page, framed only by the token's iss", async (tail, dataUrl) => {
    const { mint, frame } = await setup();
    const jwt = await mint();
    const page = await frame(`/iframe/${jwt}${tail}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toMatch(/frame-ancestors http:\/\/localhost:5174(;|$)/);
    expect(pageConfigOf(await page.text())).toMatchObject({
      dashboardId: 'sales-overview',
      protocol: 'explo',
      token: jwt,
      embedToken: { issuerOrigin: HOST },
      dataUrl,
    });
    expect(new URL(dataUrl, `http://h/iframe/${jwt}${tail}`).pathname).toBe('/iframe-data/sales-overview');
  });

  it('keeps the configured frame-ancestors for a token without iss', async () => {
    const { mint, frame } = await setup();
    const page = await frame(`/iframe/${await mint({ iss: undefined })}`, {});
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toContain('frame-ancestors http://localhost:* http://127.0.0.1:*');
    expect(pageConfigOf(await page.text())).toMatchObject({ embedToken: { issuerOrigin: null } });
  });

  it('serves the page for an expired token (it then says customerJwtExpired), and its data route answers 401', async () => {
    const { mint, frame, data } = await setup();
    const jwt = await mint({ exp: Math.floor(now / 1000) - 1 });
    expect((await frame(`/iframe/${jwt}/production`)).status).toBe(200);
    const answer = await data(jwt);
    expect(answer.status).toBe(401);
    expect(await answer.json()).toEqual({ success: 0, error: { code: 'unknown_token', message: 'the embed token has expired' } });
  });

  it.each([
    ['a token of an unknown key', (s: Awaited<ReturnType<typeof setup>>) => s.mint({}, 'key-2'), 403, /kid names no embed secret/],
    ['a token encrypted with another value', (s: Awaited<ReturnType<typeof setup>>) => s.mint({}, 'key-1', 'w'.repeat(32)), 403, /does not decrypt/],
    ['a token for an unknown customer', (s: Awaited<ReturnType<typeof setup>>) => s.mint({ cst: 'nobody' }), 403, /no customer/],
    ['a token for an unknown dashboard', (s: Awaited<ReturnType<typeof setup>>) => s.mint({ dsh: 'no-such-board' }), 404, /There is no dashboard/],
    ['a token whose dsh is no dashboard id', (s: Awaited<ReturnType<typeof setup>>) => s.mint({ dsh: '../admin' }), 400, /Dashboard ids are/],
    [
      'a token whose iss may not embed dashboards',
      (s: Awaited<ReturnType<typeof setup>>) => s.mint({ iss: 'https://evil.example/' }),
      403,
      /is not an origin allowed to embed/,
    ],
  ])('refuses %s with a visible error page, never the dashboard', async (_, make, status, message) => {
    const s = await setup();
    const page = await s.frame(`/iframe/${await make(s)}/production`);
    expect(page.status).toBe(status);
    const html = await page.text();
    expect(html).toMatch(message);
    expect(html).toContain('<h1>');
    expect(html).not.toContain('Acme Corp');
    expect(html).not.toContain('<script');
    // The error page shows wherever dashboards may be framed, so the viewer sees why.
    expect(page.headers.get('Content-Security-Policy')).toContain('frame-ancestors http://localhost:* http://127.0.0.1:*');
  });

  it.each([
    ['opened top-level', { 'Sec-Fetch-Dest': 'document' }, /only inside a frame on http:\/\/localhost:5174/],
    [
      'framed by another origin (Referer)',
      { 'Sec-Fetch-Dest': 'iframe', Referer: 'http://127.0.0.1:9999/page' },
      /only from http:\/\/localhost:5174, not from http:\/\/127.0.0.1:9999/,
    ],
    ['framed with an unreadable Referer', { Referer: '::::' }, /not from an unreadable origin/],
  ])('refuses a token with iss when %s', async (_, headers, message) => {
    const { mint, frame } = await setup();
    const page = await frame(`/iframe/${await mint()}`, headers);
    expect(page.status).toBe(403);
    expect(await page.text()).toMatch(message);
  });

  it('leaves a frame request without Sec-Fetch-Dest or Referer to the browser (frame-ancestors)', async () => {
    const { mint, frame } = await setup();
    const page = await frame(`/iframe/${await mint()}`, {});
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toMatch(/; frame-ancestors http:\/\/localhost:5174$/);
  });

  it('answers more path segments after the token with 404', async () => {
    const { mint, frame } = await setup();
    expect((await frame(`/iframe/${await mint()}/production/extra`)).status).toBe(404);
  });
});

describe('GET /iframe-data/:dashboardId with an embed token', () => {
  it("answers the token's customer's data and how long the token has left", async () => {
    const { mint, data } = await setup();
    const answer = await data(await mint());
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ dashboardId: 'sales-overview', group: { name: 'Acme Corp' }, tokenExpiresInMs: 600_000 });
  });

  it.each([
    ['a token for another dashboard', { dsh: 'support-metrics' }, HOST, /another dashboard/],
    ['a page naming another origin than iss', {}, 'http://127.0.0.1:5174', /valid only from http:\/\/localhost:5174\//],
    ['a page naming no origin', {}, null, /valid only from/],
  ])('refuses %s with 403 forbidden', async (_, claims, origin, message) => {
    const { mint, data } = await setup();
    const answer = await data(await mint(claims), 'sales-overview', origin);
    expect(answer.status).toBe(403);
    expect(await answer.json()).toEqual({ success: 0, error: { code: 'forbidden', message: expect.stringMatching(message) } });
  });

  it('refuses an expired token for another dashboard as forbidden, not as expired (no renewal loop)', async () => {
    const { mint, data } = await setup();
    expect((await data(await mint({ dsh: 'support-metrics', exp: 1 }))).status).toBe(403);
  });

  it('makes an accepted token stop working on the admin expire route, and the emulator can resolve it meanwhile', async () => {
    const { emulator, mint, data } = await setup();
    const jwt = await mint();
    expect(emulator.resolveToken(jwt)).toBeUndefined();
    expect(emulator.expireToken(jwt)).toBe(false);
    expect((await data(jwt)).status).toBe(200);
    expect(emulator.resolveToken(jwt)).toMatchObject({ providedId: 'acme', name: 'Acme Corp' });
    const expire = await emulator.app.request('/__emulator/expire', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ token: jwt }),
    });
    expect(expire.status).toBe(200);
    expect((await data(jwt)).status).toBe(401);
    expect(emulator.resolveToken(jwt)).toBeUndefined();
  });

  it('stops accepting a token once its exp passes, on the emulator clock', async () => {
    const { mint, data } = await setup();
    const jwt = await mint();
    expect((await data(jwt)).status).toBe(200);
    now += 600_000;
    try {
      expect((await data(jwt)).status).toBe(401);
    } finally {
      now -= 600_000;
    }
  });
});
