import { describe, expect, it } from 'vitest';
import { dashboardHostRoutes, type DashboardGroupView } from './index.js';
import { pageConfigOf } from '../../test/support/page-config.js';

const acme: DashboardGroupView = { name: 'Acme Corp', providedId: 'acme', environment: 'Customer', properties: { region: 'EU' } };
const app = dashboardHostRoutes({ embedOrigins: ['http://localhost:*'], resolveToken: (token) => (token === 'tok-acme' ? acme : undefined) });

describe("GET /iframe/:dashboardId/:customerToken/:environment? (the vendor's documented embed)", () => {
  it.each([
    ['/iframe/sales-overview/tok-acme/production', '../../../iframe-data/sales-overview'],
    ['/iframe/sales-overview/tok-acme/', '../../../iframe-data/sales-overview'],
    ['/iframe/sales-overview/tok-acme', '../../iframe-data/sales-overview'],
  ])('serves %s as the vendor-protocol page with the token from the path and a data route it can reach', async (path, dataUrl) => {
    const res = await app.request(`${path}?region=%22US%22`);
    expect(res.status).toBe(200);
    expect(res.headers.get('Content-Security-Policy')).toContain('frame-ancestors http://localhost:*');
    expect(pageConfigOf(await res.text())).toMatchObject({ dashboardId: 'sales-overview', protocol: 'explo', token: 'tok-acme', dataUrl });
    expect(new URL(dataUrl, `http://h${path}`).pathname).toBe('/iframe-data/sales-overview');
  });

  it('gives an unknown or dead token the page (it says so and emits the expiry event), never a 5xx', async () => {
    const dead = await app.request('/iframe/sales-overview/tok-dead/production');
    expect(dead.status).toBe(200);
    expect(pageConfigOf(await dead.text())).toMatchObject({ protocol: 'explo', token: 'tok-dead' });
    const notAToken = await app.request('/iframe/sales-overview/%3Cscript%3E%20x/production');
    expect(notAToken.status).toBe(200);
    const html = await notAToken.text();
    expect(pageConfigOf(html)).toMatchObject({ protocol: 'explo', token: null });
    expect(html).not.toContain('<script> x');
  });

  it('answers an unknown dashboard or a bad id with the same error pages as /iframe/:dashboardId', async () => {
    expect((await app.request('/iframe/no-such-board/tok-acme/production')).status).toBe(404);
    expect((await app.request('/iframe/Bad_Id/tok-acme/production')).status).toBe(400);
  });
});
