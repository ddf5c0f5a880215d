import { SignJWT, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SUPERSET_CSRF_HEADER, SUPERSET_GUEST_TOKEN_HEADER, SUPERSET_ROUTES } from '@embedded-dashboard/protocol';
import {
  SAMPLE_SUPERSET_CHARTS,
  SAMPLE_SUPERSET_DASHBOARDS,
  SAMPLE_SUPERSET_DATASET,
  SAMPLE_SUPERSET_ROWS,
  startSupersetEmulator,
  type RunningSupersetEmulator,
} from '@embedded-dashboard/emulator';
import { chartDataRequest, type SupersetManifest, type SupersetSalesRow } from '../support/superset.js';

/**
 * ONE suite, two targets: every case runs against the real Apache Superset 6.1.0 (the run's,
 * test/superset/global-setup.ts) and against the emulator's Superset mode, so the model cannot
 * drift from the real thing. A case that fails for one target only is a bug in the emulator (or a
 * fact about Superset we got wrong): fix the emulator, never the case for one side.
 */

const real = inject('superset');
if (!real) console.warn('*** SKIPPING the real-Superset half of test/superset/conformance.test.ts: no Superset (see test/support/superset.ts) ***');

let emulator: RunningSupersetEmulator | undefined;
const emulatorTarget: SupersetManifest = {
  url: '',
  version: '6.1.0',
  home: '',
  pid: 0,
  startupSeconds: 0,
  admin: { username: 'none', password: 'none' },
  serviceAccount: { username: 'conformance-service', password: 'conformance-service-password' },
  viewer: { username: 'conformance-viewer', password: 'conformance-viewer-password' },
  guestToken: { secret: 'conformance-guest-secret-0123456789', audience: 'conformance-audience', lifetimeSeconds: 300, algorithm: 'HS256' },
  guestRole: 'EmbedGuest',
  guestPermissions: [],
  guestPermissionsAbsent: [],
  serviceRole: 'EmbedService',
  servicePermissions: [],
  database: { id: 1 },
  datasets: { sales: { id: SAMPLE_SUPERSET_DATASET.id, table: SAMPLE_SUPERSET_DATASET.table, columns: [...SAMPLE_SUPERSET_DATASET.columns] } },
  charts: { rows: { id: SAMPLE_SUPERSET_CHARTS[0]!.id }, totals: { id: SAMPLE_SUPERSET_CHARTS[1]!.id } },
  dashboards: {
    sales: { ...SAMPLE_SUPERSET_DASHBOARDS[0]!, allowedDomains: [...SAMPLE_SUPERSET_DASHBOARDS[0]!.allowedDomains] },
    restricted: { ...SAMPLE_SUPERSET_DASHBOARDS[1]!, allowedDomains: [...SAMPLE_SUPERSET_DASHBOARDS[1]!.allowedDomains] },
  },
  rows: SAMPLE_SUPERSET_ROWS as unknown as SupersetSalesRow[],
};

beforeAll(async () => {
  emulator = await startSupersetEmulator({
    port: 0,
    users: [
      { ...emulatorTarget.serviceAccount, grantGuestToken: true },
      { ...emulatorTarget.viewer, grantGuestToken: false },
    ],
    guestTokenSecret: emulatorTarget.guestToken.secret,
    guestTokenAudience: emulatorTarget.guestToken.audience,
  });
  emulatorTarget.url = emulator.url;
});
afterAll(() => emulator?.close());

const targets: { name: string; target: () => SupersetManifest; skip: boolean }[] = [
  { name: 'real Superset 6.1.0', target: () => real!, skip: !real },
  { name: 'emulator (Superset mode)', target: () => emulatorTarget, skip: false },
];

const post = (t: SupersetManifest, path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(t.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function login(t: SupersetManifest, who: 'serviceAccount' | 'viewer' = 'serviceAccount', refresh = false) {
  const response = await post(t, SUPERSET_ROUTES.login, { username: t[who].username, password: t[who].password, provider: 'db', refresh });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token?: string };
}

async function csrf(t: SupersetManifest, accessToken: string) {
  const response = await fetch(t.url + SUPERSET_ROUTES.csrfToken, { headers: { authorization: `Bearer ${accessToken}` } });
  expect(response.status).toBe(200);
  const cookie = response.headers.getSetCookie().find((line) => line.startsWith('session='));
  return { token: ((await response.json()) as { result: string }).result, cookie: cookie!.split(';')[0]!, setCookie: cookie! };
}

/** The whole service-account sequence: login, CSRF token + its cookie, then the guest-token call. */
async function guestTokenCall(t: SupersetManifest, body: unknown, who: 'serviceAccount' | 'viewer' = 'serviceAccount') {
  const { access_token } = await login(t, who);
  const { token, cookie } = await csrf(t, access_token);
  return post(t, SUPERSET_ROUTES.guestToken, body, { authorization: `Bearer ${access_token}`, [SUPERSET_CSRF_HEADER]: token, cookie });
}

const guestBody = (t: SupersetManifest, clause: string, dashboard: 'sales' | 'restricted' = 'sales') => ({
  user: { username: 'conformance', first_name: 'Con', last_name: 'Formance' },
  resources: [{ type: 'dashboard', id: t.dashboards[dashboard].uuid }],
  rls: [{ clause }],
});

async function mint(t: SupersetManifest, clause: string, dashboard: 'sales' | 'restricted' = 'sales') {
  const response = await guestTokenCall(t, guestBody(t, clause, dashboard));
  expect(response.status).toBe(200);
  return ((await response.json()) as { token: string }).token;
}

/** A guest token signed with the shared secret (what a BFF that signs locally sends), with `overrides`. */
async function selfSigned(t: SupersetManifest, overrides: Record<string, unknown> = {}, secret = t.guestToken.secret) {
  const now = Date.now() / 1000;
  const claims: Record<string, unknown> = {
    user: { username: 'self-signed' },
    resources: [{ type: 'dashboard', id: t.dashboards.sales.uuid }],
    rls_rules: [{ clause: "customer_id = 'acme'" }],
    iat: now,
    exp: now + 60,
    aud: t.guestToken.audience,
    type: 'guest',
    ...overrides,
  };
  for (const [key, value] of Object.entries(claims)) if (value === undefined) delete claims[key];
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(new TextEncoder().encode(secret));
}

async function chartData(
  t: SupersetManifest,
  guestToken: string | undefined,
  chart: 'rows' | 'totals' = 'rows',
  dashboard: 'sales' | 'restricted' = 'sales',
  edit?: (body: ReturnType<typeof chartDataRequest>) => void,
) {
  const body = chartDataRequest(t, chart, dashboard);
  edit?.(body);
  const response = await post(t, '/api/v1/chart/data', body, guestToken === undefined ? {} : { [SUPERSET_GUEST_TOKEN_HEADER]: guestToken });
  const text = await response.text();
  return {
    status: response.status,
    text,
    data: response.status === 200 ? (JSON.parse(text) as { result: { data: Record<string, unknown>[] }[] }).result[0]!.data : [],
  };
}

const sortRows = (rows: Record<string, unknown>[]) => rows.map((row) => JSON.stringify(row, Object.keys(row).sort())).sort();
const rowsOf = (t: SupersetManifest, customer?: string) =>
  sortRows(t.rows.filter((row) => customer === undefined || row.customer_id === customer) as unknown as Record<string, unknown>[]);

// A bound on a hung server, not a timed assertion: a case makes 10-25 calls to a real Superset of
// one worker that the browser files of the same project load at the same time.
describe.each(targets)('Superset conformance: $name', { timeout: 60_000 }, ({ target, skip }) => {
  describe.skipIf(skip)('login and refresh (Flask-AppBuilder)', () => {
    it('logs the service account in: an HS256 access token of 15 minutes, a refresh token when asked, and refresh makes a new one', async () => {
      const t = target();
      const tokens = await login(t, 'serviceAccount', true);
      expect(decodeProtectedHeader(tokens.access_token)).toMatchObject({ alg: 'HS256', typ: 'JWT' });
      const access = decodeJwt(tokens.access_token);
      expect(access).toMatchObject({ type: 'access', fresh: true });
      expect(typeof access.sub).toBe('string');
      expect(access.exp! - access.iat!).toBe(900);
      expect(decodeJwt(tokens.refresh_token!)).toMatchObject({ type: 'refresh', fresh: false });
      expect((await login(t)).refresh_token).toBeUndefined();

      const refreshed = await fetch(t.url + SUPERSET_ROUTES.refresh, { method: 'POST', headers: { authorization: `Bearer ${tokens.refresh_token}` } });
      expect(refreshed.status).toBe(200);
      expect(decodeJwt(((await refreshed.json()) as { access_token: string }).access_token)).toMatchObject({ type: 'access', fresh: false });
      const withAccess = await fetch(t.url + SUPERSET_ROUTES.refresh, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}` } });
      expect([withAccess.status, await withAccess.json()]).toEqual([422, { msg: 'Only refresh tokens are allowed' }]);
    });

    it('refuses wrong credentials with 401 and malformed bodies with 400, naming the field', async () => {
      const t = target();
      const { username, password } = t.serviceAccount;
      const cases: [unknown, number, unknown][] = [
        [{ username, password: `${password}x`, provider: 'db' }, 401, { message: 'Not authorized' }],
        [{ username: 'nobody-at-all', password, provider: 'db' }, 401, { message: 'Not authorized' }],
        [{ username: "x' OR '1'='1", password: "x' OR '1'='1", provider: 'db' }, 401, { message: 'Not authorized' }],
        [{ username, provider: 'db' }, 400, { message: { password: ['Missing data for required field.'] } }],
        [{ username: 5, password, provider: 'db' }, 400, { message: { username: ['Not a valid string.'] } }],
        [[1], 400, { message: { _schema: ['Invalid input type.'] } }],
      ];
      for (const [body, status, answer] of cases) {
        const response = await post(t, SUPERSET_ROUTES.login, body);
        expect([response.status, await response.json()], JSON.stringify(body)).toEqual([status, answer]);
      }
      const notJson = await fetch(t.url + SUPERSET_ROUTES.login, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'x=1' });
      expect([notJson.status, await notJson.json()]).toEqual([400, { message: 'Request payload is not JSON' }]);
      const broken = await post(t, SUPERSET_ROUTES.login, '{"username":');
      expect(broken.status).toBe(400);
    });
  });

  describe.skipIf(skip)('CSRF token and its cookie', () => {
    it('needs the access token: 401 without one, 422 for a malformed one or a refresh token', async () => {
      const t = target();
      const none = await fetch(t.url + SUPERSET_ROUTES.csrfToken);
      expect([none.status, await none.json()]).toEqual([401, { msg: 'Missing Authorization Header' }]);
      const garbage = await fetch(t.url + SUPERSET_ROUTES.csrfToken, { headers: { authorization: 'Bearer abc' } });
      expect([garbage.status, await garbage.json()]).toEqual([422, { msg: 'Not enough segments' }]);
      const { refresh_token } = await login(t, 'serviceAccount', true);
      const refresh = await fetch(t.url + SUPERSET_ROUTES.csrfToken, { headers: { authorization: `Bearer ${refresh_token}` } });
      expect([refresh.status, await refresh.json()]).toEqual([422, { msg: 'Only non-refresh tokens are allowed' }]);
    });

    it('answers { result } and binds it to an HttpOnly, SameSite=Lax session cookie', async () => {
      const t = target();
      const { setCookie, token } = await csrf(t, (await login(t)).access_token);
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      expect(setCookie).toMatch(/^session=[^;]+;/);
      expect(setCookie).toMatch(/HttpOnly/);
      expect(setCookie).toMatch(/SameSite=Lax/);
    });

    it('the guest-token route is not exempt: no token, no cookie, a tampered token or another session are 400', async () => {
      const t = target();
      const { access_token } = await login(t);
      const first = await csrf(t, access_token);
      const second = await csrf(t, access_token);
      const body = guestBody(t, "customer_id = 'acme'");
      const bearer = { authorization: `Bearer ${access_token}` };
      const cases: [Record<string, string>, string][] = [
        [{ ...bearer }, 'The CSRF token is missing.'],
        [{ ...bearer, cookie: first.cookie }, 'The CSRF token is missing.'],
        [{ ...bearer, [SUPERSET_CSRF_HEADER]: first.token }, 'The CSRF session token is missing.'],
        [{ ...bearer, cookie: first.cookie, [SUPERSET_CSRF_HEADER]: `${first.token.slice(0, -3)}xyz` }, 'The CSRF token is invalid.'],
        [{ ...bearer, cookie: first.cookie, [SUPERSET_CSRF_HEADER]: second.token }, 'The CSRF tokens do not match.'],
      ];
      for (const [headers, sentence] of cases) {
        const response = await post(t, SUPERSET_ROUTES.guestToken, body, headers);
        expect(response.status, sentence).toBe(400);
        expect(((await response.json()) as { errors: { message: string }[] }).errors[0]!.message).toBe(`400 Bad Request: ${sentence}`);
      }
      const noBearer = await post(t, SUPERSET_ROUTES.guestToken, body, { cookie: first.cookie, [SUPERSET_CSRF_HEADER]: first.token });
      expect([noBearer.status, await noBearer.json()]).toEqual([401, { msg: 'Missing Authorization Header' }]);
    });
  });

  describe.skipIf(skip)('guest token', () => {
    it('is an HS256 JWT with user, resources, rls_rules, iat, exp = iat + the lifetime, aud and type "guest", verifiable with the shared secret', async () => {
      const t = target();
      const before = Date.now() / 1000;
      const token = await mint(t, "customer_id = 'acme'");
      const { payload, protectedHeader } = await jwtVerify(token, new TextEncoder().encode(t.guestToken.secret), { audience: t.guestToken.audience });
      expect(protectedHeader.alg).toBe('HS256');
      expect(payload).toMatchObject({
        user: { username: 'conformance', first_name: 'Con', last_name: 'Formance' },
        resources: [{ type: 'dashboard', id: t.dashboards.sales.uuid }],
        rls_rules: [{ clause: "customer_id = 'acme'" }],
        aud: t.guestToken.audience,
        type: 'guest',
      });
      expect(payload.iat!).toBeGreaterThanOrEqual(Math.floor(before) - 2);
      expect(payload.exp! - payload.iat!).toBeCloseTo(t.guestToken.lifetimeSeconds, 3);
    });

    it('is 403 for a user without can_grant_guest_token', async () => {
      const t = target();
      const response = await guestTokenCall(t, guestBody(t, "customer_id = 'acme'"), 'viewer');
      expect(response.status).toBe(403);
    });

    it('validates the body: 400 naming each bad field, 400 for an unknown dashboard, 500 without user (Superset 6.1.0 as it is)', async () => {
      const t = target();
      const resources = [{ type: 'dashboard', id: t.dashboards.sales.uuid }];
      const cases: [unknown, number, unknown][] = [
        [
          { user: {}, resources: [{ type: 'dashboard', id: '00000000-0000-4000-8000-000000000000' }], rls: [] },
          400,
          { message: 'EmbeddedDashboard not found.' },
        ],
        [{ user: {}, resources }, 400, { message: { rls: ['Missing data for required field.'] } }],
        [{ user: {}, rls: [] }, 400, { message: { resources: ['Missing data for required field.'] } }],
        [{ user: {}, resources: [{ type: 'chart', id: '1' }], rls: [] }, 400, { message: { resources: { 0: { type: ['Must be one of: dashboard.'] } } } }],
        [{ user: {}, resources, rls: [{ clause: '1=1', dataset: 'x' }] }, 400, { message: { rls: { 0: { dataset: ['Not a valid integer.'] } } } }],
        [{ user: {}, resources, rls: [{ dataset: 1 }] }, 400, { message: { rls: { 0: { clause: ['Missing data for required field.'] } } } }],
        [{ user: { username: 7 }, resources, rls: [] }, 400, { message: { user: { username: ['Not a valid string.'] } } }],
        [[], 400, { message: { _schema: ['Invalid input type.'] } }],
        [{ resources, rls: [] }, 500, { message: 'Fatal error' }],
      ];
      const { access_token } = await login(t);
      const { token, cookie } = await csrf(t, access_token);
      for (const [body, status, answer] of cases) {
        const response = await post(t, SUPERSET_ROUTES.guestToken, body, { authorization: `Bearer ${access_token}`, [SUPERSET_CSRF_HEADER]: token, cookie });
        expect([response.status, await response.json()], JSON.stringify(body)).toEqual([status, answer]);
      }
    });

    it('names a dashboard by its embedded UUID, or (a fact the BFF must guard against) by its id', async () => {
      const t = target();
      const byId = await guestTokenCall(t, { user: {}, resources: [{ type: 'dashboard', id: String(t.dashboards.sales.id) }], rls: [] });
      expect(byId.status).toBe(200);
    });
  });

  describe.skipIf(skip)('row-level security on the data a guest token opens', () => {
    it('two customers see only their own rows, in the rows chart and the totals chart', async () => {
      const t = target();
      for (const customer of ['acme', 'globex']) {
        const token = await mint(t, `customer_id = '${customer}'`);
        const rows = await chartData(t, token);
        expect(rows.status, rows.text).toBe(200);
        expect(sortRows(rows.data)).toEqual(rowsOf(t, customer));
        const totals = await chartData(t, token, 'totals');
        const expected = t.rows.filter((row) => row.customer_id === customer).reduce((sum, row) => sum + row.amount, 0);
        expect(totals.data).toEqual([{ customer_id: customer, total_amount: expected }]);
      }
    });

    it('a hostile claim value quoted as a literal changes nothing; the same value concatenated raw widens to every row', async () => {
      const t = target();
      const quoted = await chartData(t, await mint(t, "customer_id = 'x'' OR ''1''=''1'"));
      expect([quoted.status, quoted.data]).toEqual([200, []]);
      const apostrophe = await chartData(t, await mint(t, "customer_id = 'o''hare'"));
      expect(sortRows(apostrophe.data)).toEqual(rowsOf(t, "o'hare"));
      // Why the BFF quotes: string concatenation, what integrators write by hand, leaks every customer.
      const raw = await chartData(t, await mint(t, "customer_id = 'x' OR '1'='1'"));
      expect(sortRows(raw.data)).toEqual(rowsOf(t));
    });

    it('applies a rule to its dataset only, ANDs several rules, and refuses a clause that is not SQL (422)', async () => {
      const t = target();
      const dataset = t.datasets.sales.id;
      const other = await chartData(t, await selfSigned(t, { rls_rules: [{ clause: "customer_id = 'acme'", dataset: dataset + 99 }] }));
      expect(sortRows(other.data)).toEqual(rowsOf(t));
      const own = await chartData(t, await selfSigned(t, { rls_rules: [{ clause: "customer_id = 'acme'", dataset }] }));
      expect(sortRows(own.data)).toEqual(rowsOf(t, 'acme'));
      const both = await chartData(t, await selfSigned(t, { rls_rules: [{ clause: "customer_id = 'acme'" }, { clause: "region = 'north'" }] }));
      expect(sortRows(both.data)).toEqual(
        sortRows(t.rows.filter((r) => r.customer_id === 'acme' && r.region === 'north') as unknown as Record<string, unknown>[]),
      );
      for (const clause of ['customer_id = ', '1=1; DROP TABLE sales']) {
        const broken = await chartData(t, await selfSigned(t, { rls_rules: [{ clause }] }));
        expect(broken.status, clause).toBe(422);
        expect(broken.text).toContain('INVALID_SQL_ERROR');
      }
    });
  });

  describe.skipIf(skip)('what a guest token may open', () => {
    it('a token the BFF signs with the shared secret works like a minted one', async () => {
      const t = target();
      const data = await chartData(t, await selfSigned(t));
      expect(sortRows(data.data)).toEqual(rowsOf(t, 'acme'));
    });

    it('no token, a wrong audience, an expired token, another secret, another type, a missing claim: 401, no user at all', async () => {
      const t = target();
      const now = Date.now() / 1000;
      const refused = [
        undefined,
        'not-a-jwt',
        await selfSigned(t, { aud: 'someone-else' }),
        await selfSigned(t, { aud: undefined }),
        await selfSigned(t, { iat: now - 120, exp: now - 60 }),
        await selfSigned(t, {}, 'another-secret-entirely'),
        await selfSigned(t, { type: 'access' }),
        await selfSigned(t, { rls_rules: undefined }),
        await selfSigned(t, { user: undefined }),
        await selfSigned(t, { resources: undefined }),
      ];
      for (const [index, token] of refused.entries()) {
        const answer = await chartData(t, token);
        expect([answer.status, JSON.parse(answer.text)], `case ${index}`).toEqual([401, { msg: 'Missing Authorization Header' }]);
      }
    });

    it("another dashboard's token or another chart is 403; a changed query is answered, within the row-level security", async () => {
      const t = target();
      const restrictedToken = await mint(t, "customer_id = 'acme'", 'restricted');
      expect((await chartData(t, restrictedToken)).status).toBe(403);
      expect(sortRows((await chartData(t, restrictedToken, 'rows', 'restricted')).data)).toEqual(rowsOf(t, 'acme'));
      const token = await mint(t, "customer_id = 'acme'");
      const otherChart = await chartData(t, token, 'rows', 'sales', (body) => (body.form_data.slice_id = 999));
      expect(otherChart.status).toBe(403);
      expect(otherChart.text).toContain('DATASOURCE_SECURITY_ACCESS_ERROR');
      // A fact of 6.1.0 the BFF cannot change: the guest may ask other columns and metrics of the
      // dashboard's datasets than the chart's; only the RLS clause bounds the rows.
      const changed = await chartData(t, token, 'totals', 'sales', (body) => {
        body.queries[0]!.columns = ['region'];
        body.queries[0]!.metrics = ['count'];
      });
      expect(changed.status).toBe(200);
      const acme = t.rows.filter((row) => row.customer_id === 'acme');
      const regions = [...new Set(acme.map((row) => row.region))];
      const counts = regions.map((region) => JSON.stringify({ count: acme.filter((row) => row.region === region).length, region }));
      expect(sortRows(changed.data)).toEqual(counts.sort());
    });
  });

  describe.skipIf(skip)('the embedded page', () => {
    const page = (t: SupersetManifest, path: string, referer?: string) => fetch(t.url + path, { headers: referer ? { referer } : {}, redirect: 'manual' });

    it('is 200 for any Referer when the allowed domains are empty, framable by the test pages (CSP frame-ancestors, no X-Frame-Options)', async () => {
      const t = target();
      for (const referer of [undefined, 'http://127.0.0.1:5173/page', 'https://evil.example/']) {
        const response = await page(t, `${SUPERSET_ROUTES.embeddedPage}${t.dashboards.sales.uuid}`, referer);
        expect(response.status, String(referer)).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^text\/html/);
        expect(response.headers.get('content-security-policy')).toMatch(/frame-ancestors [^;]*http:\/\/127\.0\.0\.1:\*/);
        expect(response.headers.get('x-frame-options')).toBeNull();
      }
    });

    it('checks the Referer against the allowed domains: same scheme, host (any case) and port, else 403', async () => {
      const t = target();
      const path = `${SUPERSET_ROUTES.embeddedPage}${t.dashboards.restricted.uuid}`;
      const cases: [string | undefined, number][] = [
        ['http://allowed.invalid/some/page?x=1', 200],
        ['http://ALLOWED.invalid/', 200],
        [undefined, 403],
        ['http://evil.invalid/', 403],
        ['https://allowed.invalid/', 403],
        ['http://allowed.invalid:8080/', 403],
        ['http://allowed.invalid:80/', 403],
        ['http://allowed.invalid.evil.example/', 403],
        ['garbage', 403],
      ];
      for (const [referer, status] of cases) expect((await page(t, path, referer)).status, String(referer)).toBe(status);
    });

    it('is 404 for an unknown or malformed UUID, and takes the UUID in any case', async () => {
      const t = target();
      expect((await page(t, `${SUPERSET_ROUTES.embeddedPage}00000000-0000-4000-8000-000000000000`)).status).toBe(404);
      expect((await page(t, `${SUPERSET_ROUTES.embeddedPage}not-a-uuid`)).status).toBe(404);
      expect((await page(t, `${SUPERSET_ROUTES.embeddedPage}${"x' OR '1'='1"}`)).status).toBe(404);
      expect((await page(t, `${SUPERSET_ROUTES.embeddedPage}${t.dashboards.sales.uuid.toUpperCase()}`)).status).toBe(200);
    });
  });
});
