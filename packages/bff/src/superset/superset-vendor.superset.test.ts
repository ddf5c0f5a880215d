import { describe, expect, inject, it } from 'vitest';
import { decodeJwt } from 'jose';
import { SupersetClient, SupersetSessionRejectedError } from '@embedded-dashboard/client/superset';
import { SUPERSET_GUEST_TOKEN_HEADER } from '@embedded-dashboard/protocol';
import { startSuperset, supersetTool } from '../../../../test/support/superset.js';
import { createBffApp } from '../app.js';
import { createMemoryStore } from '../store/memory.js';
import { call, captureLogs, emitted, session, SESSION_SECRET, tokenRequest } from '../../test/support/fixtures.js';
import { supersetVendor } from './superset-vendor.js';
import type { SupersetVendorOptions } from './options.js';

/*
 * The Superset adapter against the real Apache Superset 6.1.0 the superset project starts
 * (test/support/superset.ts): the service account's login and CSRF dance, guest tokens Superset
 * mints and ones the BFF signs, each used on Superset's own chart data API, whose rows show what
 * the row-level security let through.
 */

const manifest = inject('superset');
if (!manifest) console.warn('*** SKIPPING packages/bff/src/superset/superset-vendor.superset.test.ts: no Superset (see test/support/superset.ts) ***');

const m = manifest!;
const RLS = 'customer_id = {org_id}';

/** The customer ids of the rows Superset's chart data API answers a guest token with (the `rows` chart of the `sales` dashboard). */
async function customersSeen(token: string): Promise<{ status: number; customers: string[]; rows: number }> {
  const { sales } = m.datasets;
  const body = {
    datasource: { id: sales.id, type: 'table' },
    force: true,
    queries: [{ columns: sales.columns, metrics: [], orderby: [], row_limit: 1000, filters: [], extras: { having: '', where: '' } }],
    form_data: {
      datasource: `${sales.id}__table`,
      viz_type: 'table',
      query_mode: 'raw',
      all_columns: sales.columns,
      order_by_cols: [],
      row_limit: 1000,
      adhoc_filters: [],
      slice_id: m.charts.rows.id,
      dashboardId: m.dashboards.sales.id,
    },
    result_format: 'json',
    result_type: 'full',
  };
  const res = await fetch(`${m.url}/api/v1/chart/data`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [SUPERSET_GUEST_TOKEN_HEADER]: token },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) return { status: res.status, customers: [], rows: 0 };
  const data = (JSON.parse(text) as { result: { data: { customer_id: string }[] }[] }).result[0]!.data;
  return { status: res.status, customers: [...new Set(data.map((row) => row.customer_id))].sort(), rows: data.length };
}

const customers = () => [...new Set(m.rows.map((row) => row.customer_id))].sort();
const rowsOf = (customer: string) => m.rows.filter((row) => row.customer_id === customer).length;
const serviceClient = (password = m.serviceAccount.password) =>
  new SupersetClient({ baseUrl: m.url, username: m.serviceAccount.username, password, timeoutMs: 10_000 });

function app(vendor: Partial<SupersetVendorOptions>, store = createMemoryStore()) {
  return createBffApp({
    session: { secret: SESSION_SECRET },
    logger: captureLogs().logger,
    store,
    circuitBreaker: false,
    vendor: supersetVendor({ dashboards: [m.dashboards.sales.uuid], rls: RLS, ...vendor }),
  });
}

async function bffToken(bff: ReturnType<typeof app>, claims: Record<string, unknown>, dashboard = m.dashboards.sales.uuid) {
  return call(bff, '/embed/token', tokenRequest(await session(claims), { dashboard }));
}

describe.skipIf(!manifest)('the Superset adapter against the real Superset', () => {
  it('the client signs in (login, CSRF token and its cookie) and Superset mints a guest token it accepts', async () => {
    const client = serviceClient();
    const signedIn = await client.signIn();
    const [customer] = customers();
    const guest = await client.guestToken(signedIn, {
      user: { username: 'conformance' },
      resources: [{ type: 'dashboard', id: m.dashboards.sales.uuid }],
      rls: [{ clause: `customer_id = '${customer}'` }],
    });
    const claims = decodeJwt(guest.token);
    expect(claims).toMatchObject({ type: 'guest', aud: m.guestToken.audience });
    expect(claims.exp! - claims.iat!).toBe(m.guestToken.lifetimeSeconds);
    expect(guest.expiresAt).toBe(claims.exp! * 1000);
    expect(await customersSeen(guest.token)).toEqual({ status: 200, customers: [customer], rows: rowsOf(customer!) });
  });

  it('the real server refuses a guest token request without the CSRF cookie, or with a forged CSRF token, as a session rejection', async () => {
    const client = serviceClient();
    const signedIn = await client.signIn();
    const request = { user: { username: 'x' }, resources: [{ type: 'dashboard' as const, id: m.dashboards.sales.uuid }], rls: [] };
    await expect(client.guestToken({ ...signedIn, cookie: '' }, request)).rejects.toBeInstanceOf(SupersetSessionRejectedError);
    await expect(client.guestToken({ ...signedIn, csrfToken: `${signedIn.csrfToken.slice(0, -2)}xx` }, request)).rejects.toBeInstanceOf(
      SupersetSessionRejectedError,
    );
    await expect(client.guestToken({ ...signedIn, accessToken: `${signedIn.accessToken.slice(0, -2)}xx` }, request)).rejects.toBeInstanceOf(
      SupersetSessionRejectedError,
    );
  });

  for (const mode of ['minted by Superset', 'signed by the BFF'] as const) {
    const vendor = (): Partial<SupersetVendorOptions> =>
      mode === 'minted by Superset' ? { client: serviceClient() } : { guestTokenSecret: m.guestToken.secret, audience: m.guestToken.audience };

    it(`${mode}: each customer sees only its own rows, two customers on one BFF`, async () => {
      const bff = app(vendor());
      const [first, second] = customers();
      for (const customer of [first!, second!]) {
        const res = await bffToken(bff, { org_id: customer, sub: `user-of-${customer}` });
        expect(res.status).toBe(200);
        const { token, expiresAt } = res.body as { token: string; expiresAt: number };
        expect(expiresAt).toBe(decodeJwt(token).exp! * 1000);
        expect(await customersSeen(token)).toEqual({ status: 200, customers: [customer], rows: rowsOf(customer) });
      }
    });

    it(`${mode}: the hostile claim value x' OR '1'='1 widens nothing (no rows: no customer has that id)`, async () => {
      const bff = app(vendor());
      const res = await bffToken(bff, { org_id: "x' OR '1'='1" });
      expect(res.status).toBe(200);
      expect(await customersSeen((res.body as { token: string }).token)).toEqual({ status: 200, customers: [], rows: 0 });
      // A claim with a backslash never reaches Superset.
      expect((await bffToken(bff, { org_id: "x\\' OR 1=1 -- " })).status).toBe(403);
    });
  }

  it('minted: sessions of one customer share one guest token across a fleet sharing a store', async () => {
    const store = createMemoryStore();
    const fleet = [app({ client: serviceClient() }, store), app({ client: serviceClient() }, store)];
    const [customer] = customers();
    const answers = await Promise.all(fleet.flatMap((bff) => [bffToken(bff, { org_id: customer }), bffToken(bff, { org_id: customer })]));
    expect(new Set(answers.map((a) => (a.body as { token: string }).token)).size).toBe(1);
  });

  it('minted: a dashboard the BFF names but Superset does not know is 502 upstream_error, not retryable', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    const bff = app({ client: serviceClient(), dashboards: [unknown] });
    const res = await bffToken(bff, { org_id: customers()[0] }, unknown);
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error', retryable: false } });
  });

  it('minted: a refused service login is 502, never a 401, and the password is in no answer or log line', async () => {
    const wrong = 'LEAKCHECK-wrong-superset-password';
    const res = await bffToken(app({ client: serviceClient(wrong) }), { org_id: customers()[0] });
    expect(res.status).toBe(502);
    expect(res.body).toMatchObject({ error: { code: 'upstream_error' } });
    expect(emitted.filter((line) => line.includes(wrong) || line.includes(m.serviceAccount.password) || line.includes(m.guestToken.secret))).toEqual([]);
  });

  it('minted: Superset stopped is 503 upstream_unavailable (retryable), and the BFF recovers by itself once it is back', async () => {
    const server = await startSuperset(supersetTool().python);
    try {
      const own = server.manifest;
      const bff = createBffApp({
        session: { secret: SESSION_SECRET },
        logger: captureLogs().logger,
        circuitBreaker: false,
        vendor: supersetVendor({
          dashboards: [own.dashboards.sales.uuid],
          rls: RLS,
          client: new SupersetClient({ baseUrl: own.url, username: own.serviceAccount.username, password: own.serviceAccount.password, timeoutMs: 10_000 }),
        }),
      });
      const ask = async (org_id: string) => call(bff, '/embed/token', tokenRequest(await session({ org_id }), { dashboard: own.dashboards.sales.uuid }));
      expect((await ask('acme-before')).status).toBe(200);
      await server.stop();
      const down = await ask('acme-while-down');
      expect(down.status).toBe(503);
      expect(down.body).toMatchObject({ error: { code: 'upstream_unavailable', retryable: true } });
      await server.start();
      expect((await ask('acme-after')).status).toBe(200);
    } finally {
      await server.dispose();
    }
  }, 300_000);

  it('signed by the BFF with another secret: Superset refuses the token (the signature is what it checks)', async () => {
    const res = await bffToken(app({ guestTokenSecret: 'another-secret-0123456789abcdef-0123', audience: m.guestToken.audience }), { org_id: customers()[0] });
    expect((await customersSeen((res.body as { token: string }).token)).status).not.toBe(200);
  });
});
