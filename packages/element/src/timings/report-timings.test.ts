import { describe, expect, it, vi } from 'vitest';
import { json, mount, ORIGIN, resolved, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';
import '../metabase.js';
import '../timings.js';

useElementTestEnvironment();

/** `navigator.sendBeacon`, recorded (happy-dom has none); `false` makes the element fall back to fetch. */
function stubBeacon(accepted = true) {
  const beacon = vi.fn((_url: string, _body?: BodyInit | null) => accepted);
  Object.defineProperty(navigator, 'sendBeacon', { value: beacon, configurable: true });
  return beacon;
}

const later =
  <T>(ms: number, value: T) =>
  () =>
    new Promise<T>((resolve) => setTimeout(() => resolve(value), ms));

/** The dashboard's side of a load: its frame's page loads after `frameMs`, its data after `loadedMs` more. */
async function loadDashboard({ frame, fromFrame, el }: Mounted, frameMs: number, loadedMs: number) {
  await vi.advanceTimersByTimeAsync(frameMs);
  frame.dispatchEvent(new Event('load'));
  fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } });
  await vi.advanceTimersByTimeAsync(loadedMs);
  fromFrame({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 600, loadTime: loadedMs } });
  await settle(el);
}

const bodies = (beacon: ReturnType<typeof stubBeacon>) => beacon.mock.calls.map(([, body]) => JSON.parse(String(body)) as unknown);

describe('report-timings (import "@embedded-dashboard/element/timings")', () => {
  it('sends nothing unless asked: a whole load and renewal without the attribute beacons nothing', async () => {
    const beacon = stubBeacon();
    const fetch = stubFetch(json(tokenBody(120)));
    const mounted = await mount();
    await loadDashboard(mounted, 50, 100);
    await vi.advanceTimersByTimeAsync(120_000);
    await settle(mounted.el);
    expect(mounted.el.reportTimings).toBe(false);
    expect(beacon).not.toHaveBeenCalled();
    expect(fetch.mock.calls.every(([url]) => String(url).includes('/embed/token'))).toBe(true);
  });

  it('beacons a load once the dashboard says loaded: token, frame and loaded in ms from its start, as text to …/timings', async () => {
    const beacon = stubBeacon();
    stubFetch(later(80, json(tokenBody())));
    const mounted = await mount({ 'report-timings': '' });
    await vi.advanceTimersByTimeAsync(80);
    await settle(mounted.el);
    expect(beacon).not.toHaveBeenCalled();
    await loadDashboard(mounted, 220, 700);
    expect(beacon).toHaveBeenCalledTimes(1);
    const [url, body] = beacon.mock.calls[0]!;
    expect(url).toBe(new URL('timings', resolved(mounted.el)).href);
    expect(url).toMatch(/\/embed\/timings$/);
    // A string: sendBeacon sends it as text/plain, a CORS-safelisted type (no preflight).
    expect(typeof body).toBe('string');
    expect(JSON.parse(String(body))).toEqual({ dashboard: 'sales', kind: 'load', token: 80, frame: 300, loaded: 1000 });
    // dashboard-load said again (the frame repeats it) is no second load.
    mounted.fromFrame({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 600, loadTime: 1 } });
    expect(beacon).toHaveBeenCalledTimes(1);
  });

  it('beacons each renewal at its token (the frame keeps running): kind renewal, token alone', async () => {
    const beacon = stubBeacon();
    stubFetch(json(tokenBody(120)), later(45, json(tokenBody(120))), later(30, json(tokenBody(120))));
    const mounted = await mount({ 'report-timings': '', 'refresh-margin': '60' });
    await settle(mounted.el);
    await loadDashboard(mounted, 10, 10);
    // The protocol's renewal rule: a 120 s token is renewed when min(margin, a third) is left, at
    // 80 s, answered 45 ms later; the next 80 s after that one.
    await vi.advanceTimersByTimeAsync(80_000 + 45);
    await settle(mounted.el);
    await vi.advanceTimersByTimeAsync(80_000 + 30);
    await settle(mounted.el);
    expect(bodies(beacon)).toEqual([
      { dashboard: 'sales', kind: 'load', token: 0, frame: 10, loaded: 20 },
      { dashboard: 'sales', kind: 'renewal', token: 45 },
      { dashboard: 'sales', kind: 'renewal', token: 30 },
    ]);
  });

  it('counts the retries of a failed first request in its token time, and reports nothing for a 401', async () => {
    const beacon = stubBeacon();
    stubFetch(json({ error: { code: 'upstream_unavailable', message: 'down', retryable: true } }, 503, { 'Retry-After': '1' }), json(tokenBody()));
    const mounted = await mount({ 'report-timings': '' });
    await vi.advanceTimersByTimeAsync(1000);
    await settle(mounted.el);
    await loadDashboard(mounted, 0, 5);
    expect(bodies(beacon)).toEqual([{ dashboard: 'sales', kind: 'load', token: 1000, frame: 1000, loaded: 1005 }]);

    // Gone from the page, so the next element cannot take its token (later tiles reuse a connected one's).
    mounted.el.remove();
    const refused = stubBeacon();
    stubFetch(json({ error: { code: 'unauthenticated', message: 'not signed in', retryable: false } }, 401));
    const signedOut = await mount({ 'report-timings': '' });
    await settle(signedOut.el);
    expect(signedOut.el.state).toBe('unauthenticated');
    await loadDashboard(signedOut, 5, 5);
    expect(refused).not.toHaveBeenCalled();
  });

  it('sends nothing for an item without a dashboard (a Metabase question alone): the BFF allows and labels reports by dashboard', async () => {
    const beacon = stubBeacon();
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount({ protocol: 'metabase', dashboard: null, chart: '12', 'src-template': `${ORIGIN}/embed/dashboard/{token}`, 'report-timings': '' });
    await settle(m.el);
    m.fromFrame({ metabase: { type: 'frame', frame: { mode: 'fit', height: 480 } } });
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
    expect(beacon).not.toHaveBeenCalled();
    expect(fetch.mock.calls.every(([url]) => String(url).includes('/embed/token'))).toBe(true);
  });

  it('is the reportTimings property too, reflected as the attribute, and read when a report is due', async () => {
    const beacon = stubBeacon();
    stubFetch(json(tokenBody()));
    const mounted = await mount();
    mounted.el.reportTimings = true;
    expect(mounted.el.hasAttribute('report-timings')).toBe(true);
    await settle(mounted.el);
    await loadDashboard(mounted, 5, 5);
    expect(beacon).toHaveBeenCalledTimes(1);
    mounted.el.reportTimings = false;
    expect(mounted.el.hasAttribute('report-timings')).toBe(false);
  });

  it('falls back to fetch with keepalive where sendBeacon is missing or refuses, with the credentials of token-url', async () => {
    stubBeacon(false);
    const fetch = stubFetch(json(tokenBody()), new Response(null, { status: 204 }));
    const mounted = await mount({ 'report-timings': '', 'with-credentials': '', 'token-url': 'https://bff.example.com/api/embed/token' });
    await settle(mounted.el);
    await loadDashboard(mounted, 5, 5);
    const [url, init] = fetch.mock.calls.at(-1)!;
    expect(url).toBe('https://bff.example.com/api/embed/timings');
    expect(init).toMatchObject({ method: 'POST', keepalive: true, credentials: 'include' });
    expect(JSON.parse(String(init!.body))).toMatchObject({ dashboard: 'sales', kind: 'load' });
    // No content type of its own: a string body goes as text/plain, without a preflight.
    expect(init!.headers).toBeUndefined();
  });
});
