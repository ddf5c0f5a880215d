import { describe, expect, it } from 'vitest';
import { engines, type FrameRef } from '../support/browsers/index.js';
import {
  clickTestId,
  eventually,
  expireWithButton,
  iframeHeight,
  latestToken,
  openApp,
  sampleHost,
  sleep,
  tokenStatuses,
  useDemo,
  waitForGeneration,
  waitForReady,
  type AppTab,
  type HostSample,
} from './harness.js';

/** The titles of the charts the dashboard frame shows, and whether it shows anything besides charts (KPIs, the details). */
const shownCharts = (frame: FrameRef) =>
  frame.evaluate(() => ({
    charts: [...document.querySelectorAll('figure.chart')].map((figure) => figure.querySelector('.chart-title')?.textContent ?? ''),
    kpis: document.querySelectorAll('.kpi').length,
    details: document.querySelectorAll('[data-testid="toggle-details"]').length,
    height: Math.ceil(document.documentElement.getBoundingClientRect().height),
  }));

/**
 * Records, from inside the dashboard frame, every change of the chart titles it shows, on each
 * animation frame from now on (`''`: no chart at all, a blank moment); `seen()` reads them.
 */
async function watchCharts(frame: FrameRef): Promise<{ seen(): Promise<string[]> }> {
  await frame.evaluate(() => {
    const seen: string[] = [];
    (window as unknown as { __charts: string[] }).__charts = seen;
    const tick = () => {
      const titles = [...document.querySelectorAll('figure.chart .chart-title')].map((title) => title.textContent).join(' + ');
      if (seen.at(-1) !== titles) seen.push(titles);
      requestAnimationFrame(tick);
    };
    tick();
  });
  return { seen: () => frame.evaluate(() => [...(window as unknown as { __charts: string[] }).__charts]) };
}

/** The element's attribute `name` set to `value` (`null`: removed), as the host page's script would. */
const setAttribute = (app: AppTab, name: string, value: string | null) =>
  app.tab.evaluate(
    ([attribute, to]) => {
      const element = document.querySelector('embedded-dashboard')!;
      if (to === null) element.removeAttribute(attribute);
      else element.setAttribute(attribute, to);
    },
    [name, value] as const,
  );

/** What the BFF at `path` answers the page's own `POST` of `body` (status and JSON body). */
const post = (app: AppTab, path: string, body: object) =>
  app.tab.evaluate(
    async ([url, json]) => {
      const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
      return { status: answer.status, body: (await answer.json()) as { error?: { code: string; message: string; retryable?: boolean } } };
    },
    [path, JSON.stringify(body)] as const,
  );

describe.each(engines())('demo in $name: a single-chart embed (protocol="explo-jwt" chart, EMBED_JWT_MINT=vendor)', (engine) => {
  const run = useDemo(engine);
  /**
   * `/app?protocol=explo-jwt&chart=<id>` for Acme: one chart of its dashboard, the embed tokens
   * minted by the vendor (`generate_jwt`'s `chart_id`) through the demo's third BFF (/embed-chart,
   * `EMBED_JWT_MINT=vendor`). A demo per test (renewals at once: no minimum rotation interval).
   */
  const open = async (chart: string) => {
    const demo = await run.startDemo({ minRotationIntervalSeconds: 0 });
    return openApp(await run.newContext(), demo, `acme&protocol=explo-jwt&chart=${chart}`);
  };

  it.skipIf(!engine.available)(
    'shows that chart alone at its own height, keeps it through a rotation, swaps to another chart with no blank frame, and back to the whole dashboard',
    async () => {
      const app = await open('revenue-by-month');
      const { demo } = app;
      await waitForReady(app);
      expect((await app.tokenRequests()).map((r) => [r.path, r.dashboard, r.chart, r.status])).toEqual([
        ['/embed-chart/token', 'sales-overview', 'revenue-by-month', 200],
      ]);
      expect(demo.emulator.stats().requests).toMatchObject({ generateJwt: 1 });
      const frame = await app.frame();
      const single = await shownCharts(frame);
      expect(single).toMatchObject({ charts: ['Revenue by month (USD)'], kpis: 0, details: 0 });
      // The element follows the single chart's height (not the whole dashboard's).
      await eventually('the frame to be as tall as the single chart', async () => Math.abs((await iframeHeight(app.tab)) - single.height) <= 2);

      // A rotation (the vendor refuses the token): renewed through /embed-chart/token/rotate, still for that chart.
      const first = await latestToken(app);
      const loaded = await app.dashboardDocument();
      await expireWithButton(app);
      await waitForGeneration(app, 2);
      const renewed = await latestToken(app);
      expect(renewed).not.toBe(first);
      expect((await app.tokenRequests()).at(-1)).toMatchObject({ path: '/embed-chart/token/rotate', chart: 'revenue-by-month', status: 200 });
      expect(demo.emulator.stats().requests).toMatchObject({ generateJwt: 2 });
      expect(await app.dashboardDocument()).toBe(loaded);
      expect(await shownCharts(frame)).toMatchObject({ charts: ['Revenue by month (USD)'], kpis: 0 });
      // The renewed token itself carries the chart: the vendor's data for it is that chart alone.
      const data = await fetch(`${demo.emulatorUrl}/iframe-data/sales-overview`, { headers: { Authorization: `Bearer ${renewed}`, 'Embed-Origin': demo.url } });
      const served = (await data.json()) as { charts: { id: string }[]; kpis: unknown[]; details: { rows: unknown[] }; variables: object };
      expect(served.charts.map((c) => c.id)).toEqual(['revenue-by-month']);
      // Nothing else of the dashboard's data is served for it either: no KPI, no detail row.
      expect([served.kpis, served.details.rows, served.variables]).toEqual([[], [], {}]);

      // Another chart at runtime (the demo's chart picker sets `chart`): never a moment without a visible dashboard.
      await sampleHost(app.tab);
      const charts = await watchCharts(frame);
      await clickTestId(app, 'pick-chart-orders-by-month');
      await eventually('the frame to show the other chart', async () => {
        const shown = await shownCharts(await app.frame());
        return shown.charts.join() === 'Orders by month (orders)';
      });
      await eventually('the element to be ready again', async () => (await app.state()) === 'ready');
      await sleep(200);
      const samples = await app.tab.evaluate<HostSample[]>(() => window.__hostSamples ?? []);
      expect(samples.length).toBeGreaterThan(5);
      expect(samples.filter((s) => s.visible.length !== 1)).toEqual([]);
      expect((await app.tokenRequests()).at(-1)).toMatchObject({ path: '/embed-chart/token', chart: 'orders-by-month', status: 200 });
      expect(await shownCharts(await app.frame())).toMatchObject({ kpis: 0, details: 0 });
      // In the running frame (the new token posted to it), from one chart straight to the other.
      expect(await app.dashboardDocument()).toBe(loaded);
      expect(await charts.seen()).toEqual(['Revenue by month (USD)', 'Orders by month (orders)']);

      // The whole dashboard again (its tokens from the BFF that mints them): taller than one chart.
      await clickTestId(app, 'pick-chart-none');
      await eventually('the whole dashboard', async () => (await shownCharts(await app.frame())).charts.length === 2);
      expect(await charts.seen()).toEqual(['Revenue by month (USD)', 'Orders by month (orders)', 'Revenue by month (USD) + Orders by month (orders)']);
      const whole = await shownCharts(await app.frame());
      expect(whole.kpis).toBeGreaterThan(0);
      await eventually('the frame to grow to the whole dashboard', async () => (await iframeHeight(app.tab)) > single.height + 50);
      expect((await app.tokenRequests()).at(-1)).toMatchObject({ path: '/embed-jwt/token', dashboard: 'sales-overview', status: 200 });
      expect((await app.tokenRequests()).at(-1)?.chart).toBeUndefined();
      // And one chart again: the frame shrinks back to it.
      await clickTestId(app, 'pick-chart-revenue-by-month');
      await eventually('the single chart again', async () => (await shownCharts(await app.frame())).charts.join() === 'Revenue by month (USD)');
      await eventually('the frame to shrink to the single chart', async () => Math.abs((await iframeHeight(app.tab)) - single.height) <= 2);
      expect((await charts.seen()).at(-1)).toBe('Revenue by month (USD)');
      expect((await charts.seen()).filter((titles) => titles === '')).toEqual([]);
      expect((await app.events('dashboard-error')).map((e) => e.detail.code)).toEqual([]);
      expect(await app.console()).toEqual([]);
    },
  );

  it.skipIf(!engine.available)('shows two charts of one dashboard side by side, each its own (one token request per chart)', async () => {
    const app = await open('revenue-by-month');
    await waitForReady(app);
    // Two more elements, added in one task: their token requests start together.
    await app.tab.evaluate(() => {
      const first = document.querySelector('embedded-dashboard')!;
      for (const chart of ['orders-by-month', 'revenue-by-month']) {
        const element = document.createElement('embedded-dashboard');
        for (const name of ['protocol', 'environment', 'src-template', 'token-url', 'dashboard']) element.setAttribute(name, first.getAttribute(name)!);
        element.setAttribute('chart', chart);
        element.id = `side-${chart}`;
        first.after(element);
      }
    });
    const charts = await eventually('three dashboard frames showing data', async () => {
      const frames = (await app.tab.frames()).filter((frame) => frame !== undefined);
      const shown: string[] = [];
      for (const frame of frames) {
        const url = await frame.url().catch(() => '');
        if (!url.includes('/iframe/')) continue;
        const state = await frame.evaluate(() => document.body.dataset.state).catch(() => undefined);
        if (state !== 'ready') return undefined;
        shown.push((await shownCharts(frame)).charts.join());
      }
      return shown.length === 3 ? shown.sort() : undefined;
    });
    expect(charts).toEqual(['Orders by month (orders)', 'Revenue by month (USD)', 'Revenue by month (USD)']);
    const ready = await app.tab.evaluate(() => [...document.querySelectorAll('embedded-dashboard')].map((element) => element.getAttribute('state')));
    expect(ready).toEqual(['ready', 'ready', 'ready']);
    expect((await app.tokenRequests()).filter((r) => r.chart === 'orders-by-month').map((r) => r.status)).toEqual([200]);
    expect(await app.console()).toEqual([]);
  });

  it.skipIf(!engine.available)(
    'hostile: a chart the dashboard lacks is the vendor’s refusal, a malformed one invalid_attribute, a chart from a BFF that mints itself a configuration error',
    async () => {
      const app = await open('revenue-by-month');
      await waitForReady(app);
      const requests = (await app.tokenRequests()).length;

      // A chart of another dashboard: the vendor refuses generate_jwt; the BFF says so (502, not the user's 401).
      await setAttribute(app, 'chart', 'tickets-by-status');
      await eventually('the element to show its error state', async () => (await app.state()) === 'error');
      const refusal = (await app.events('dashboard-error')).at(-1)?.detail;
      // Not retried: the BFF says the vendor's refusal will not pass (no generate_jwt call a minute per open page).
      expect(refusal).toMatchObject({ code: 'upstream_error', retryable: false });
      expect(await tokenStatuses(app, requests)).toEqual([502]);
      const direct = await post(app, '/embed-chart/token', { dashboard: 'sales-overview', chart: 'tickets-by-status' });
      expect(direct.status).toBe(502);
      expect(direct.body.error).toMatchObject({ code: 'upstream_error', retryable: false });
      expect(direct.body.error?.message).toMatch(/vendor/);
      expect(JSON.stringify(direct.body)).not.toMatch(/dev-customer-key/);

      // Malformed: refused by the element before any request.
      const before = (await app.tokenRequests()).length;
      await setAttribute(app, 'chart', '../x');
      await eventually('invalid_attribute', async () => (await app.events('dashboard-error')).at(-1)?.detail.code === 'invalid_attribute');
      expect(await app.state()).toBe('error');
      expect(String((await app.events('dashboard-error')).at(-1)?.detail.message)).toMatch(/chart/);
      await sleep(500);
      expect((await app.tokenRequests()).length).toBe(before);

      // A chart from the BFF that mints its tokens itself: its 400 says what to configure.
      await app.tab.evaluate(() => {
        const element = document.querySelector('embedded-dashboard')!;
        element.setAttribute('token-url', '/embed-jwt/token');
        element.setAttribute('chart', 'revenue-by-month');
      });
      await eventually('the configuration error', async () => (await app.events('dashboard-error')).at(-1)?.detail.code === 'bad_request');
      const config = (await app.events('dashboard-error')).at(-1)?.detail;
      expect(config).toMatchObject({ retryable: false });
      expect(String(config?.message)).toMatch(/EMBED_JWT_MINT=vendor/);
      expect(await app.state()).toBe('error');
      expect((await app.tokenRequests()).at(-1)).toMatchObject({ path: '/embed-jwt/token', chart: 'revenue-by-month', status: 400 });
    },
  );
});
