import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TIMINGS_LIMITS } from '@embedded-dashboard/protocol';
import { createBffApp } from '../app.js';
import type { BffAppOptions } from '../options.js';
import { createBffMetrics } from '../observability/prometheus.js';
import { metabaseVendor } from '../metabase/metabase-vendor.js';
import { supersetVendor } from '../superset/superset-vendor.js';
import { createMetricsApp } from './metrics-routes.js';
import { API_TOKEN, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET } from '../../test/support/fixtures.js';
import { socketBffs } from '../../test/support/socket-bffs.js';

/*
 * POST /embed/timings over real sockets: one BFF (cookie sessions, as beacons carry) and its
 * metrics listener for the file, plus a few BFFs of other configurations where a case needs one.
 */

const servers = socketBffs();
afterAll(() => servers.closeAll());
afterAll(() => expect(findLeaks()).toEqual([]));

const DASHBOARD = 'sales-overview';
const COOKIE = 'embed_session';
const FLOOD_LIMIT = 5;

async function start(overrides: Partial<BffAppOptions> = {}) {
  const metrics = createBffMetrics();
  const app = createBffApp({
    upstream: new FakeUpstream(),
    session: { secret: SESSION_SECRET, cookie: COOKIE },
    logger: captureLogs().logger,
    secrets: [API_TOKEN],
    metrics,
    timings: { dashboards: [DASHBOARD, 'ops'] },
    ...overrides,
  });
  const url = await servers.serve(app);
  const metricsUrl = await servers.serve(createMetricsApp(metrics));
  return { url, scrape: async () => (await fetch(`${metricsUrl}/metrics`)).text() };
}

let bff: Awaited<ReturnType<typeof start>>;
let cookie: string;
beforeAll(async () => {
  bff = await start();
  cookie = `${COOKIE}=${await session()}`;
});

/** A beacon as a browser sends one: text/plain, the page's cookie and Origin. */
const beacon = (url: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/embed/timings`, {
    method: 'POST',
    headers: { 'content-type': 'text/plain;charset=UTF-8', cookie, origin: url, ...headers },
    body,
  });

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe('POST /embed/timings', () => {
  it('observes a load into the three histograms by vendor, dashboard and kind, and answers 204', async () => {
    const res = await beacon(bff.url, JSON.stringify({ dashboard: DASHBOARD, kind: 'load', token: 120, frame: 480, loaded: 1900 }));
    expect(res.status).toBe(204);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toBe('');
    // The fetch fallback's JSON type is taken too, and a renewal carries its token alone.
    const json = await beacon(bff.url, JSON.stringify({ dashboard: DASHBOARD, kind: 'renewal', token: 40 }), { 'content-type': 'application/json' });
    expect(json.status).toBe(204);
    const text = await bff.scrape();
    const labels = `vendor="explo",dashboard="${DASHBOARD}",kind="load"`;
    expect(text).toContain(`embed_bff_dashboard_load_seconds_sum{${labels}} 1.9`);
    expect(text).toContain(`embed_bff_dashboard_load_seconds_bucket{le="2",${labels}} 1`);
    expect(text).toContain(`embed_bff_dashboard_load_seconds_bucket{le="1",${labels}} 0`);
    expect(text).toContain(`embed_bff_dashboard_frame_ready_seconds_sum{${labels}} 0.48`);
    expect(text).toContain(`embed_bff_dashboard_token_seconds_sum{${labels}} 0.12`);
    expect(text).toContain(`embed_bff_dashboard_token_seconds_sum{vendor="explo",dashboard="${DASHBOARD}",kind="renewal"} 0.04`);
    expect(text).not.toContain(`embed_bff_dashboard_load_seconds_count{vendor="explo",dashboard="${DASHBOARD}",kind="renewal"}`);
    expect(text).toMatch(/embed_bff_timing_reports_total\{outcome="ok"\} [2-9]/);
    // Never the customer: the session's org is in no label.
    expect(text).not.toContain('acme');
  });

  it.each([
    ['a body over 512 bytes', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 1, pad: 'x'.repeat(TIMINGS_LIMITS.maxBodyBytes) }), 413],
    ['a negative timing', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: -1 }), 400],
    ['a timing over 10 minutes', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: TIMINGS_LIMITS.maxMs + 1 }), 400],
    ['Infinity (1e999)', `{"dashboard":"${DASHBOARD}","kind":"load","loaded":1e999}`, 400],
    ['NaN', `{"dashboard":"${DASHBOARD}","kind":"load","loaded":NaN}`, 400],
    ['a string for a number', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: '120' }), 400],
    ['null for a number', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', token: null }), 400],
    ['no timing', JSON.stringify({ dashboard: DASHBOARD, kind: 'load' }), 400],
    ['an unknown kind', JSON.stringify({ dashboard: DASHBOARD, kind: 'visit', loaded: 1 }), 400],
    ['an unknown field (a customer id)', JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 1, customer: 'acme' }), 400],
    ['an array', JSON.stringify([{ dashboard: DASHBOARD, kind: 'load', loaded: 1 }]), 400],
    ['no body', '', 400],
    ['not JSON', 'dashboard=sales-overview&loaded=1', 400],
    ['a number for the dashboard', JSON.stringify({ dashboard: 7, kind: 'load', loaded: 1 }), 400],
    ['a dashboard the BFF does not embed', JSON.stringify({ dashboard: 'other', kind: 'load', loaded: 1 }), 403],
  ])('refuses %s, and observes nothing', async (_, body, status) => {
    const before = await bff.scrape();
    const res = await beacon(bff.url, body);
    expect(res.status).toBe(status);
    expect((await errorOf(res)).code).toBe(status === 403 ? 'forbidden' : 'bad_request');
    const after = await bff.scrape();
    const observed = (text: string) => text.split('\n').filter((line) => line.startsWith('embed_bff_dashboard_'));
    expect(observed(after)).toEqual(observed(before));
  });

  it('refuses a report without a session (401), from another origin (403) and of a form type (415), before reading it', async () => {
    const body = JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 1 });
    const anonymous = await beacon(bff.url, body, { cookie: '' });
    expect(anonymous.status).toBe(401);
    expect((await errorOf(anonymous)).code).toBe('unauthenticated');
    const forged = await beacon(bff.url, body, { cookie: `${COOKIE}=${await session(undefined, { key: new TextEncoder().encode('x'.repeat(48)) })}` });
    expect(forged.status).toBe(401);
    const hostile: Record<string, string>[] = [
      { origin: 'https://evil.example' },
      { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { origin: 'null' },
    ];
    for (const headers of hostile) {
      const res = await beacon(bff.url, body, headers);
      expect(res.status).toBe(403);
      expect((await errorOf(res)).code).toBe('forbidden');
    }
    const form = await beacon(bff.url, body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect(form.status).toBe(415);
    expect(await bff.scrape()).toMatch(/embed_bff_timing_reports_total\{outcome="unauthenticated"\} 2/);
  });

  it(`limits a flood: the session's report ${FLOOD_LIMIT + 1} in a minute is 429 with Retry-After, other sessions go on`, async () => {
    const flooded = await start({ rateLimit: { timings: { limit: FLOOD_LIMIT, windowSeconds: 60 } } });
    const body = JSON.stringify({ dashboard: 'ops', kind: 'renewal', token: 5 });
    const statuses: number[] = [];
    for (let i = 0; i <= FLOOD_LIMIT; i++) statuses.push((await beacon(flooded.url, body)).status);
    expect(statuses).toEqual([...Array<number>(FLOOD_LIMIT).fill(204), 429]);
    const refused = await beacon(flooded.url, body);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await errorOf(refused)).code).toBe('rate_limited');
    // A hostile body in the flood is counted before it is read.
    expect((await beacon(flooded.url, 'x'.repeat(TIMINGS_LIMITS.maxBodyBytes * 4))).status).toBe(429);
    const other = `${COOKIE}=${await session({ org_id: 'globex', org_name: 'Globex', embed_properties: { region: 'US' }, sub: 'someone-else' })}`;
    expect((await beacon(flooded.url, body, { cookie: other })).status).toBe(204);
    expect(await flooded.scrape()).toContain(`embed_bff_dashboard_token_seconds_count{vendor="explo",dashboard="ops",kind="renewal"} ${FLOOD_LIMIT + 1}`);
  });

  it('answers a cross-origin page it allows with CORS headers (no preflight: text/plain)', async () => {
    const cors = await start({ allowedOrigins: ['https://app.example'] });
    const res = await beacon(cors.url, JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 3 }), {
      origin: 'https://app.example',
      'sec-fetch-site': 'cross-site',
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
  });

  it("takes the vendor's own list and name: Explo's embed tokens, Superset's and Metabase's dashboards; none (customer tokens) refuses every report", async () => {
    const explo = await start({ timings: undefined, embedToken: { keyId: 'k', key: 'k'.repeat(32), dashboards: ['embedded-one'] } });
    expect((await beacon(explo.url, JSON.stringify({ dashboard: 'embedded-one', kind: 'load', loaded: 9 }))).status).toBe(204);
    expect((await beacon(explo.url, JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 9 }))).status).toBe(403);
    const uuid = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
    const superset = await start({
      upstream: undefined,
      timings: undefined,
      vendor: supersetVendor({ dashboards: [uuid], rls: 'customer_id = {org_id}', guestTokenSecret: 'g'.repeat(32), audience: 'superset' }),
    });
    expect((await beacon(superset.url, JSON.stringify({ dashboard: uuid, kind: 'load', frame: 700 }))).status).toBe(204);
    expect(await superset.scrape()).toContain(`embed_bff_dashboard_frame_ready_seconds_sum{vendor="superset",dashboard="${uuid}",kind="load"} 0.7`);
    // Metabase's EMBED_DASHBOARDS: its dashboards only (a question has no dashboard to label).
    const metabase = await start({
      upstream: undefined,
      timings: undefined,
      vendor: metabaseVendor({ secret: 'ab'.repeat(32), params: { customer_id: '{org_id}' }, dashboards: [7], questions: [12] }),
    });
    expect((await beacon(metabase.url, JSON.stringify({ dashboard: '7', kind: 'renewal', token: 40 }))).status).toBe(204);
    expect(await metabase.scrape()).toContain('embed_bff_dashboard_token_seconds_sum{vendor="metabase",dashboard="7",kind="renewal"} 0.04');
    for (const dashboard of ['8', '12']) expect((await beacon(metabase.url, JSON.stringify({ dashboard, kind: 'load', loaded: 9 }))).status).toBe(403);
    const unlisted = await start({ timings: undefined });
    const res = await beacon(unlisted.url, JSON.stringify({ dashboard: DASHBOARD, kind: 'load', loaded: 9 }));
    expect(res.status).toBe(403);
    expect((await errorOf(res)).message).toMatch(/EMBED_DASHBOARDS/);
  });

  it('refuses a timings.dashboards option that is not a list of dashboard ids', () => {
    const base = { upstream: new FakeUpstream(), session: { secret: SESSION_SECRET } };
    for (const dashboards of [[], ['a b'], 'sales' as unknown as string[]]) {
      expect(() => createBffApp({ ...base, timings: { dashboards } })).toThrow(/timings.dashboards must be a non-empty list/);
    }
  });
});
