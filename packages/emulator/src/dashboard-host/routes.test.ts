import { describe, expect, it } from 'vitest';
import type { DashboardData } from './page/dashboard-data.js';
import { dashboardHostRoutes, SAMPLE_DASHBOARDS, type DashboardGroupView } from './index.js';

const acme: DashboardGroupView = { name: 'Acme Corp', providedId: 'acme', environment: 'Customer', properties: { region: 'EU', seats: 42 } };
const globex: DashboardGroupView = { name: 'Globex', providedId: 'globex', environment: 'Testing', properties: { region: 'US' } };
const tokens = new Map<string, DashboardGroupView>([
  ['tok-acme', acme],
  ['tok-acme-again', acme],
  ['tok-globex', globex],
]);

const makeApp = (resolveToken = (token: string) => tokens.get(token)) =>
  dashboardHostRoutes({ embedOrigins: ['http://localhost:*', 'https://app.example.com'], resolveToken });

const getData = (app: ReturnType<typeof makeApp>, dashboard: string, token?: string) =>
  app.request(`/iframe-data/${dashboard}`, token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } });

describe('GET /iframe/:dashboardId', () => {
  it('serves every sample dashboard as one self-contained HTML page', async () => {
    expect(SAMPLE_DASHBOARDS).toEqual(expect.arrayContaining(['sales-overview', 'support-metrics']));
    for (const id of SAMPLE_DASHBOARDS) {
      const res = await makeApp().request(`/iframe/${id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('Content-Type')).toMatch(/^text\/html/);
      const html = await res.text();
      expect(html).toContain(`"dashboardId":"${id}"`);
      expect(html).not.toMatch(/<script[^>]+src=|<link[\s>]|<img[\s>]|@import|url\(/);
    }
  });

  it('sends a CSP that limits framing to the embed origins and runs only its own nonce', async () => {
    const res = await makeApp().request('/iframe/sales-overview');
    const csp = res.headers.get('Content-Security-Policy') ?? '';
    expect(csp).toContain('frame-ancestors http://localhost:* https://app.example.com');
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('unsafe-inline');
    const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    const html = await res.text();
    expect(html).toContain(`<script nonce="${nonce}">`);
    expect(html).toContain(`<style nonce="${nonce}">`);
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    expect(res.headers.get('Referrer-Policy')).toBe('no-referrer');
  });

  it('uses a fresh nonce for every response', async () => {
    const app = makeApp();
    const a = (await app.request('/iframe/sales-overview')).headers.get('Content-Security-Policy');
    const b = (await app.request('/iframe/sales-overview')).headers.get('Content-Security-Policy');
    expect(a).not.toBe(b);
  });

  it('inlines a script that cannot end its own element early', async () => {
    const html = await (await makeApp().request('/iframe/sales-overview')).text();
    const script = html.slice(html.indexOf('<script'), html.lastIndexOf('</script>'));
    expect(script.slice(8)).not.toMatch(/<\/script|<!--/i);
  });

  it('answers an unknown dashboard with a 404 page', async () => {
    const res = await makeApp().request('/iframe/no-such-board');
    expect(res.status).toBe(404);
    expect(res.headers.get('Content-Security-Policy')).toContain('frame-ancestors');
    expect(await res.text()).toContain('Unknown dashboard');
  });

  it.each(['Sales-Overview', 'sales_overview', 'a'.repeat(65), '%3Cscript%3Ealert(1)%3C%2Fscript%3E', '-lead', 'trail-', 'a--b', '%00'])(
    'refuses the malformed id %s with 400 and does not echo it',
    async (id) => {
      const res = await makeApp().request(`/iframe/${id}`);
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).not.toContain('<script>alert');
      expect(html).not.toContain(decodeURIComponent(id));
    },
  );
});

describe('GET /iframe-data/:dashboardId', () => {
  it('answers a known token with the group, its properties as variables and the sample data', async () => {
    const res = await getData(makeApp(), 'sales-overview', 'tok-acme');
    expect(res.status).toBe(200);
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    expect(res.headers.get('X-Content-Type-Options')).toBe('nosniff');
    const data = (await res.json()) as DashboardData;
    expect(data.dashboardId).toBe('sales-overview');
    expect(data.group).toEqual({ name: 'Acme Corp', providedId: 'acme', environment: 'Customer' });
    expect(data.variables).toEqual({ region: 'EU', seats: 42 });
    expect(data.charts.map((c) => c.kind)).toEqual(['bar', 'line']);
    expect(data.charts[0]?.points).toHaveLength(12);
    expect(data.details.rows.length).toBe(50);
  });

  it('gives a group the same data every time, whichever of its tokens is used', async () => {
    const app = makeApp();
    const first = await (await getData(app, 'support-metrics', 'tok-acme')).json();
    const again = await (await getData(app, 'support-metrics', 'tok-acme-again')).json();
    expect(again).toEqual(first);
  });

  it('gives other groups and other dashboards other numbers', async () => {
    const app = makeApp();
    const acmeSales = (await (await getData(app, 'sales-overview', 'tok-acme')).json()) as DashboardData;
    const globexSales = (await (await getData(app, 'sales-overview', 'tok-globex')).json()) as DashboardData;
    const acmeSupport = (await (await getData(app, 'support-metrics', 'tok-acme')).json()) as DashboardData;
    expect(globexSales.charts[0]?.points).not.toEqual(acmeSales.charts[0]?.points);
    expect(globexSales.group).toEqual({ name: 'Globex', providedId: 'globex', environment: 'Testing' });
    expect(acmeSupport.title).toBe('Support metrics');
    expect(acmeSupport.charts[0]?.points.map((p) => p.label)).toEqual(['Open', 'Pending', 'Solved', 'Closed', 'Escalated']);
  });

  it.each([
    ['no header', undefined],
    ['an unknown token', 'tok-nobody'],
    ['an oversized token', 'x'.repeat(1025)],
  ])('answers 401 for %s', async (_, token) => {
    const res = await getData(makeApp(), 'sales-overview', token);
    expect(res.status).toBe(401);
    expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
    expect(res.headers.get('Cache-Control')).toBe('no-store');
    const body = (await res.json()) as { success: number; error: { code: string } };
    expect(body.success).toBe(0);
    if (token) expect(JSON.stringify(body)).not.toContain(token);
  });

  it.each(['Token tok-acme', 'Basic dG9rLWFjbWU=', 'Bearer', 'Bearer  tok-acme', 'Bearer tok acme'])('answers 401 for the header %j', async (header) => {
    let asked = 0;
    const app = makeApp((token) => {
      asked += 1;
      return tokens.get(token);
    });
    const res = await app.request('/iframe-data/sales-overview', { headers: { Authorization: header } });
    expect(res.status).toBe(401);
    expect(asked).toBe(0);
  });

  it('answers 404 for an unknown dashboard and 400 for a malformed id, before looking at the token', async () => {
    expect((await getData(makeApp(), 'no-such-board', 'tok-acme')).status).toBe(404);
    expect((await getData(makeApp(), 'BAD_ID', 'tok-acme')).status).toBe(400);
  });

  it('returns hostile names and properties as plain JSON strings', async () => {
    const hostile: DashboardGroupView = {
      name: '<script>alert(1)</script>',
      providedId: 'evil',
      environment: 'Customer',
      properties: { '<img src=x onerror=alert(1)>': '</script><script>alert(2)</script>', nested: { a: [1, 2] }, big: 'y'.repeat(5000), n: Number.NaN },
    };
    const res = await getData(
      makeApp(() => hostile),
      'sales-overview',
      'any',
    );
    expect(res.headers.get('Content-Type')).toMatch(/^application\/json/);
    const data = (await res.json()) as DashboardData;
    expect(data.group.name).toBe('<script>alert(1)</script>');
    expect(data.variables['<img src=x onerror=alert(1)>']).toBe('</script><script>alert(2)</script>');
    expect(data.variables.nested).toBe('{"a":[1,2]}');
    expect(String(data.variables.big)).toHaveLength(1000);
    expect(data.variables.n).toBe('null');
  });

  it('keeps a __proto__ property as a plain variable', async () => {
    const group: DashboardGroupView = { ...acme, properties: JSON.parse('{"__proto__":{"polluted":true},"region":"EU"}') as Record<string, unknown> };
    const data = (await (
      await getData(
        makeApp(() => group),
        'sales-overview',
        'any',
      )
    ).json()) as DashboardData;
    expect(Object.keys(data.variables)).toEqual(['__proto__', 'region']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('dashboardHostRoutes options', () => {
  const resolveToken = () => undefined;
  it.each([
    [[]],
    [['*']],
    [['http://localhost:3000/']],
    [['javascript:alert(1)']],
    [['http://a.com; script-src *']],
    [['ftp://x.com']],
    [['http://localhost:**']],
  ])('refuses embedOrigins %j', (embedOrigins) => {
    expect(() => dashboardHostRoutes({ embedOrigins, resolveToken })).toThrow(/embedOrigins/);
  });

  it.each([0, -1, 1.5, Number.NaN, 10 ** 12])('refuses dataRefreshMs %s', (dataRefreshMs) => {
    expect(() => dashboardHostRoutes({ embedOrigins: ['http://localhost:*'], resolveToken, dataRefreshMs })).toThrow(/dataRefreshMs/);
  });

  it('bakes dataRefreshMs and normalised origins into the page', async () => {
    const app = dashboardHostRoutes({ embedOrigins: ['HTTP://LOCALHOST:*', 'http://[::1]:8080'], resolveToken, dataRefreshMs: 250 });
    const res = await app.request('/iframe/sales-overview');
    expect(res.headers.get('Content-Security-Policy')).toContain('frame-ancestors http://localhost:* http://[::1]:8080');
    expect(await res.text()).toContain('"dataRefreshMs":250');
  });
});
