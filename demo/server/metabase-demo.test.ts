import { decodeJwt, decodeProtectedHeader } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemo, type RunningDemo } from './start-demo.js';

/*
 * The demo's Metabase choice (`/metabase`): the page, and its BFF signing guest tokens that the
 * emulator's Metabase mode (on its own port) verifies and answers with the customer's rows only.
 * test/e2e/metabase-demo.test.ts shows it in the browsers.
 */

let demo: RunningDemo | undefined;
afterEach(async () => {
  await demo?.close();
  demo = undefined;
});

const signIn = async (url: string, customer: string, vendor = '') => {
  const response = await fetch(`${url}/login?customer=${customer}${vendor}`, { redirect: 'manual' });
  return { cookie: (response.headers.get('Set-Cookie') ?? '').split(';')[0] ?? '', location: response.headers.get('Location') };
};

describe('the demo with Metabase picked', () => {
  it('signs in to /metabase, whose BFF signs each customer a guest token the emulator answers with that customer’s rows only', async () => {
    demo = await startDemo({ port: 0, publicDir: false, superset: false });
    const { cookie, location } = await signIn(demo.url, 'globex', '&vendor=metabase');
    expect(location).toBe('/metabase');
    const page = await fetch(`${demo.url}/metabase`, { headers: { Cookie: cookie } });
    expect(page.status).toBe(200);
    expect(page.headers.get('Content-Security-Policy')).toBe(`frame-ancestors 'none'; frame-src ${demo.metabaseUrl}`);
    const html = await page.text();
    expect(html).toContain('protocol="metabase" dashboard="1"');
    expect(html).toContain(`src-template="${demo.metabaseUrl}/embed/dashboard/{token}"`);
    expect(html).toContain('token-url="/embed-metabase/token"');
    const script = await fetch(`${demo.url}/metabase/embedded-dashboard-metabase.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain('hide_parameters');

    const token = (customerCookie: string, body: unknown = { dashboard: '1' }) =>
      fetch(`${demo!.url}/embed-metabase/token`, {
        method: 'POST',
        headers: { Cookie: customerCookie, 'Content-Type': 'application/json', Origin: demo!.url },
        body: JSON.stringify(body),
      });
    const answer = await token(cookie);
    expect(answer.status).toBe(200);
    const { token: guest } = (await answer.json()) as { token: string };
    expect(decodeProtectedHeader(guest).alg).toBe('HS256');
    expect(decodeJwt(guest)).toMatchObject({ resource: { dashboard: 1 }, params: { customer_id: ['globex'] } });
    // The emulator verifies it (the demo's secret, made per run) and filters by the locked parameter.
    const rows = await fetch(`${demo.metabaseUrl}/api/embed/dashboard/${guest}/dashcard/1/card/1`);
    // 202, as Metabase answers a card's query.
    expect(rows.status).toBe(202);
    const customers = ((await rows.json()) as { data: { rows: unknown[][] } }).data.rows.map((row) => row[0]);
    expect(customers.length).toBeGreaterThan(0);
    expect(new Set(customers)).toEqual(new Set(['globex']));

    // Only the demo's dashboard, and no say over the locked parameter from the request.
    expect((await token(cookie, { dashboard: '2' })).status).toBe(403);
    expect((await token(cookie, { dashboard: '1', customer_id: 'acme' })).status).toBe(400);
    expect((await token('')).status).toBe(401);
  });

  it('sends a signed-out visitor of /metabase to the sign-in page', async () => {
    demo = await startDemo({ port: 0, publicDir: false, superset: false });
    const page = await fetch(`${demo.url}/metabase`, { redirect: 'manual' });
    expect(page.status).toBe(302);
    expect(page.headers.get('Location')).toBe('/');
  });
});
