import { jwtDecrypt } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { UPSTREAM_APIS } from '@embedded-dashboard/protocol';
import { acme, API_TOKEN, emitted, findLeaks, session } from '../../../test/support/fixtures.js';
import { createMemoryStore } from '../../store/memory.js';
import { emulatorBffs } from '../../../test/support/socket-bffs.js';

const KEY = 'LEAKCHECK-emulator-embed-key-32b';
const emu = emulatorBffs({ testingApiToken: 'LEAKCHECK-testing-api-token-77a1', admin: true, embedSecrets: [{ id: 'key-1', value: KEY }] });
afterAll(() => {
  expect(findLeaks()).toEqual([]);
  expect(emitted.filter((line) => line.includes(KEY))).toEqual([]);
});

describe.each(UPSTREAM_APIS)('embed tokens from a BFF over a socket, accepted by the emulator (client speaking %s)', (api) => {
  async function start() {
    const bff = await emu.start({ embedToken: { keyId: 'key-1', key: KEY }, tokenTtlSeconds: 600 }, undefined, { api });
    const token = async (dashboard: string) => {
      const res = await bff.post('/embed/token', { authorization: `Bearer ${await session()}`, origin: bff.url }, { dashboard });
      expect(res.status).toBe(200);
      return (res.body as { token: string }).token;
    };
    return { bff, token };
  }

  it("mints a token the emulator's dashboard frame accepts for the session's customer, from the page's origin only", async () => {
    const { bff, token } = await start();
    const jwt = await token('sales-overview');
    const page = await fetch(`${emu.url}/iframe/${jwt}/production`, { headers: { 'Sec-Fetch-Dest': 'iframe', Referer: `${bff.url}/app` } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(new RegExp(`frame-ancestors ${bff.url}$`));
    const data = await fetch(`${emu.url}/iframe-data/sales-overview`, { headers: { Authorization: `Bearer ${jwt}`, 'Embed-Origin': bff.url } });
    expect(await data.json()).toMatchObject({ group: { name: 'Acme Corp' }, variables: { region: 'EU' } });
    const elsewhere = await fetch(`${emu.url}/iframe-data/sales-overview`, {
      headers: { Authorization: `Bearer ${jwt}`, 'Embed-Origin': 'http://localhost:1' },
    });
    expect(elsewhere.status).toBe(403);
    const otherDashboard = await fetch(`${emu.url}/iframe-data/support-metrics`, { headers: { Authorization: `Bearer ${jwt}`, 'Embed-Origin': bff.url } });
    expect(otherDashboard.status).toBe(403);
  });

  it('costs the vendor one get-or-create for a new customer and nothing for the next 200 page views', async () => {
    const { token } = await start();
    await token('sales-overview');
    const before = emu.emulator.stats().requests;
    expect(before).toMatchObject({ getOrCreate: 1, update: 0, rotate: 0, generateJwt: 0 });
    const jwts = new Set<string>();
    for (let i = 0; i < 200; i++) jwts.add(await token(i % 2 ? 'sales-overview' : 'support-metrics'));
    expect(jwts.size).toBe(200);
    expect(emu.emulator.stats().requests).toEqual(before);
  });

  it('keeps the customer token out of everything the BFF said', async () => {
    const { bff, token } = await start();
    await token('sales-overview');
    const answer = await emu.emulator.app.request('/api/create_customer/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Explo-Authorization': `Token ${API_TOKEN}` },
      body: JSON.stringify({ provided_id: 'acme', name: acme.org_name }),
    });
    const customerToken = ((await answer.json()) as { customer: { token: string } }).customer.token;
    expect(customerToken.length).toBeGreaterThan(10);
    expect(emitted.some((line) => line.includes(customerToken))).toBe(false);
    expect(bff.logs.lines.some((line) => line.includes(customerToken))).toBe(false);
  });
});

describe("embed tokens minted by the vendor (mint: 'vendor'): the emulator's generate_jwt behind a BFF over a socket", () => {
  it("answers the emulator's own token, which its frame accepts from the page's origin; 200 more page views and a second BFF on the store cost no vendor call", async () => {
    const store = createMemoryStore();
    const options = { embedToken: { keyId: 'key-1', mint: 'vendor' as const }, tokenTtlSeconds: 600, store };
    const bff = await emu.start(options, undefined, { api: 'explo-customer' });
    const ask = async (on: typeof bff, dashboard: string) => {
      const res = await on.post('/embed/token', { authorization: `Bearer ${await session()}`, origin: bff.url }, { dashboard });
      expect(res.status).toBe(200);
      return (res.body as { token: string; expiresAt: number }).token;
    };
    const jwt = await ask(bff, 'sales-overview');
    expect(emu.emulator.stats().requests).toMatchObject({ getOrCreate: 1, update: 0, rotate: 0, generateJwt: 1 });
    const { payload, protectedHeader } = await jwtDecrypt(jwt, new TextEncoder().encode(KEY));
    expect(protectedHeader).toMatchObject({ alg: 'dir', enc: 'A256GCM', kid: 'key-1' });
    expect(payload).toMatchObject({ cst: 'acme', dsh: 'sales-overview', iss: `${bff.url}/` });
    const page = await fetch(`${emu.url}/iframe/${jwt}/production`, { headers: { 'Sec-Fetch-Dest': 'iframe', Referer: `${bff.url}/app` } });
    expect(page.status).toBe(200);

    // The second BFF serves on the first one's origin: the same page, another process of the fleet.
    const second = await emu.start({ ...options, allowedOrigins: [bff.url] }, undefined, { api: 'explo-customer' });
    const before = emu.emulator.stats().requests;
    for (let i = 0; i < 200; i++) expect(await ask(i % 2 ? second : bff, 'sales-overview')).toBe(jwt);
    expect(emu.emulator.stats().requests).toEqual(before);
  });

  it('asks the emulator for a single-chart token (chart -> chart_id): its frame data holds that chart alone; the whole dashboard is another token', async () => {
    const bff = await emu.start({ embedToken: { keyId: 'key-1', mint: 'vendor' }, tokenTtlSeconds: 600 }, undefined, { api: 'explo-customer' });
    const ask = async (body: Record<string, string>) =>
      bff.post('/embed/token', { authorization: `Bearer ${await session()}`, origin: bff.url }, body) as Promise<{ status: number; body: { token: string } }>;
    const chart = await ask({ dashboard: 'sales-overview', chart: 'orders-by-month' });
    expect(chart.status).toBe(200);
    const data = await fetch(`${emu.url}/iframe-data/sales-overview`, { headers: { Authorization: `Bearer ${chart.body.token}`, 'Embed-Origin': bff.url } });
    expect(((await data.json()) as { charts: Array<{ id: string }> }).charts.map((c) => c.id)).toEqual(['orders-by-month']);
    const whole = await ask({ dashboard: 'sales-overview' });
    expect(whole.body.token).not.toBe(chart.body.token);
    // A chart the dashboard does not have: the vendor's 404 is the vendor's failure (502), never the user's (401).
    const missing = await ask({ dashboard: 'sales-overview', chart: 'tickets-by-status' });
    expect(missing.status).toBe(502);
  });

  it("refuses EMBED_JWT_MINT=vendor's library form with the /api/user client at start", async () => {
    await expect(emu.start({ embedToken: { keyId: 'key-1', mint: 'vendor' } })).rejects.toThrow(/needs an upstream with generateJwt/);
  });
});
