import { describe, expect, it, vi } from 'vitest';
import {
  FakeBroadcastChannel,
  json,
  mount,
  nextTokenUrl,
  ORIGIN,
  resolved,
  settle,
  stubFetch,
  tokenBody,
  useElementTestEnvironment,
  type Mounted,
} from '../../test/support/fixtures.js';

useElementTestEnvironment();

const TEMPLATE = `${ORIGIN}/iframe/{token}/{environment}`;
const jwtAttributes = (extra: Record<string, string> = {}) => ({ protocol: 'explo-jwt', 'src-template': TEMPLATE, environment: 'production', ...extra });
const bodyOf = (fetch: ReturnType<typeof stubFetch>, call: number) => JSON.parse(fetch.mock.calls[call]![1]!.body as string) as Record<string, unknown>;
const urlOf = (fetch: ReturnType<typeof stubFetch>, call: number) => fetch.mock.calls[call]![0];
const postedJwts = (m: Pick<Mounted, 'win'>) =>
  m.win.postMessage.mock.calls.filter(([message]) => message.event === 'updateCustomerJwt').map(([message, origin]) => [message.detail.jwt, origin]);
const loaded = { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 600, loadTime: 10 } };

describe('<embedded-dashboard protocol="explo-jwt">', () => {
  it('names its dashboard in the token request and puts the embed token where the template says', async () => {
    const first = tokenBody(600);
    const fetch = stubFetch(json(first));
    const m = await mount(jwtAttributes());
    await settle(m.el);
    expect(bodyOf(fetch, 0)).toEqual({ dashboard: 'sales' });
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/iframe/${first.token}/production`);
    expect(m.el.shadowRoot!.querySelectorAll('iframe')).toHaveLength(1);
  });

  it('two charts of one dashboard never share a token request in flight: each element gets the token for its chart', async () => {
    const answers: ((r: Response) => void)[] = [];
    const fetch = stubFetch(() => new Promise<Response>((resolve) => answers.push(resolve)));
    const a = await mount(jwtAttributes({ chart: 'revenue-by-month' }));
    const b = await mount(jwtAttributes({ chart: 'orders-by-month' }));
    const c = await mount(jwtAttributes({ chart: 'revenue-by-month' }));
    await settle();
    expect([0, 1].map((call) => bodyOf(fetch, call))).toEqual([
      { dashboard: 'sales', chart: 'revenue-by-month' },
      { dashboard: 'sales', chart: 'orders-by-month' },
    ]);
    expect(fetch).toHaveBeenCalledTimes(2);
    const revenue = tokenBody(600);
    const orders = tokenBody(600);
    answers[0]!(json(revenue));
    answers[1]!(json(orders));
    for (const m of [a, b, c]) await settle(m.el);
    expect([a, b, c].map((m) => m.frame.getAttribute('src'))).toEqual([revenue, orders, revenue].map((body) => `${ORIGIN}/iframe/${body.token}/production`));
  });

  it('renews in the running frame on customerJwtExpired: the same iframe, the same src, updateCustomerJwt to its exact origin', async () => {
    const first = tokenBody(600);
    const renewed = tokenBody(600);
    const fetch = stubFetch(json(first), json(renewed));
    const m = await mount(jwtAttributes());
    await settle(m.el);
    m.fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight: 0 } });
    m.fromFrame(loaded);
    await settle(m.el);
    const src = m.frame.getAttribute('src');
    m.fromFrame({ event: 'customerJwtExpired', detail: {} });
    await settle(m.el);
    expect(urlOf(fetch, 1)).toBe(`${resolved(m.el)}/rotate`);
    expect(bodyOf(fetch, 1)).toEqual({ token: first.token, dashboard: 'sales' });
    expect(postedJwts(m)).toEqual([
      [first.token, ORIGIN],
      [renewed.token, ORIGIN],
    ]);
    const frames = m.el.shadowRoot!.querySelectorAll('iframe');
    expect(frames).toHaveLength(1);
    expect(frames[0]).toBe(m.frame);
    expect(m.frame.getAttribute('src')).toBe(src);
    expect(m.el.state).toBe('ready');
    expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
  });

  it('renews before the token expires (refresh-margin), in the running frame', async () => {
    const first = tokenBody(600);
    const renewed = tokenBody(600);
    const fetch = stubFetch(json(first), json(renewed));
    const m = await mount(jwtAttributes({ 'refresh-margin': '60' }));
    await settle(m.el);
    m.fromFrame(loaded);
    await vi.advanceTimersByTimeAsync(539_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1_000);
    await settle(m.el);
    expect(bodyOf(fetch, 1)).toEqual({ token: first.token, dashboard: 'sales' });
    expect(postedJwts(m).at(-1)).toEqual([renewed.token, ORIGIN]);
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/iframe/${first.token}/production`);
  });

  it('ignores a customerJwtExpired from another origin or another window', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
    const m = await mount(jwtAttributes());
    await settle(m.el);
    m.fromFrame({ event: 'customerJwtExpired', detail: {} }, { origin: 'https://evil.example' });
    m.fromFrame({ event: 'customerJwtExpired', detail: {} }, { source: window });
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('shares a token request in flight, and across tabs, only with elements of the same dashboard', async () => {
    const answers: Array<(r: Response) => void> = [];
    const fetch = stubFetch(() => new Promise<Response>((resolve) => answers.push(resolve)));
    const sales = await mount(jwtAttributes());
    const again = await mount(jwtAttributes());
    const support = await mount(jwtAttributes({ dashboard: 'support' }));
    await settle();
    expect(fetch).toHaveBeenCalledTimes(2);
    expect([bodyOf(fetch, 0), bodyOf(fetch, 1)]).toEqual([{ dashboard: 'sales' }, { dashboard: 'support' }]);
    const forSales = tokenBody(600);
    const forSupport = tokenBody(600);
    answers[0]!(json(forSales));
    answers[1]!(json(forSupport));
    await settle(sales.el);
    expect([sales.frame, again.frame, support.frame].map((f) => f.getAttribute('src'))).toEqual([
      `${ORIGIN}/iframe/${forSales.token}/production`,
      `${ORIGIN}/iframe/${forSales.token}/production`,
      `${ORIGIN}/iframe/${forSupport.token}/production`,
    ]);
    const names = FakeBroadcastChannel.open.map((c) => c.name);
    expect(new Set(names)).toEqual(new Set([`embedded-dashboard:${resolved(sales.el)} sales`, `embedded-dashboard:${resolved(sales.el)} support`]));
  });

  it("adopts another tab's renewal for its own dashboard only", async () => {
    const first = tokenBody(600);
    stubFetch(json(first));
    const tokenUrl = new URL(nextTokenUrl(), document.baseURI).href;
    const salesTab = new FakeBroadcastChannel(`embedded-dashboard:${tokenUrl} sales`);
    const supportTab = new FakeBroadcastChannel(`embedded-dashboard:${tokenUrl} support`);
    const m = await mount(jwtAttributes());
    await settle(m.el);
    m.fromFrame(loaded);
    supportTab.postMessage({ type: 'rotated', tokenUrl, response: tokenBody(600) });
    expect(postedJwts(m)).toEqual([]);
    const renewed = tokenBody(600);
    salesTab.postMessage({ type: 'rotated', tokenUrl, response: renewed });
    expect(postedJwts(m)).toEqual([[renewed.token, ORIGIN]]);
  });

  it('starts over for a new dashboard: a fresh token for it, never the old one presented, in a new frame URL', async () => {
    const first = tokenBody(600);
    const other = tokenBody(600);
    const fetch = stubFetch(json(first), json(other));
    const m = await mount(jwtAttributes());
    await settle(m.el);
    m.el.setAttribute('dashboard', 'support');
    await settle(m.el);
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(urlOf(fetch, 1)).toBe(resolved(m.el));
    expect(bodyOf(fetch, 1)).toEqual({ dashboard: 'support' });
    expect(m.el.shadowRoot!.querySelector('iframe')!.getAttribute('src')).toBe(`${ORIGIN}/iframe/${other.token}/production`);
  });

  it('asks for a single-chart token with chart: the request and the renewal carry it, and a new chart (or none) starts over', async () => {
    const first = tokenBody(600);
    const renewed = tokenBody(600);
    const whole = tokenBody(600);
    const fetch = stubFetch(json(first), json(renewed), json(whole));
    const m = await mount(jwtAttributes({ chart: 'revenue-by-month' }));
    await settle(m.el);
    expect(bodyOf(fetch, 0)).toEqual({ dashboard: 'sales', chart: 'revenue-by-month' });
    m.fromFrame(loaded);
    m.fromFrame({ event: 'customerJwtExpired', detail: {} });
    await settle(m.el);
    expect(bodyOf(fetch, 1)).toEqual({ token: first.token, dashboard: 'sales', chart: 'revenue-by-month' });
    m.el.removeAttribute('chart');
    await settle(m.el);
    await settle(m.el);
    expect(bodyOf(fetch, 2)).toEqual({ dashboard: 'sales' });
    expect(bodyOf(fetch, 2)).not.toHaveProperty('token');
  });

  it('posts another chart’s token to the running frame: the same frame, no reload (a chart of a dashboard is no item of its own)', async () => {
    const first = tokenBody(600);
    const other = tokenBody(600);
    stubFetch(json(first), json(other));
    const m = await mount(jwtAttributes({ chart: 'revenue-by-month' }));
    await settle(m.el);
    m.fromFrame(loaded);
    await settle(m.el);
    m.el.setAttribute('chart', 'orders-by-month');
    await settle(m.el);
    await settle(m.el);
    expect([...m.el.shadowRoot!.querySelectorAll('iframe')]).toEqual([m.frame]);
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/iframe/${first.token}/production`);
    expect(postedJwts(m).at(-1)).toEqual([other.token, ORIGIN]);
  });

  it.each([
    ['oversized', { chart: 'c'.repeat(129) }, /chart must be a chart id/],
    ['not an id', { chart: '../x' }, /chart must be a chart id/],
    ['markup', { chart: '<img src=x>' }, /chart must be a chart id/],
    ['empty', { chart: '' }, /chart must be a chart id/],
    ['under protocol="explo"', { chart: 'revenue-by-month', protocol: 'explo' }, /chart needs protocol="explo-jwt"/],
    ['under protocol="message"', { chart: 'revenue-by-month', protocol: 'message' }, /chart needs protocol="explo-jwt"/],
  ])('refuses a chart that is %s with invalid_attribute and asks for no token', async (_name, extra, message) => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(jwtAttributes(extra));
    await settle(m.el);
    expect(fetch).not.toHaveBeenCalled();
    expect(m.el.state).toBe('error');
    const errors = m.events.filter((e) => e.type === 'dashboard-error').map((e) => (e as CustomEvent<{ code: string; message: string }>).detail);
    expect(errors).toEqual([{ code: 'invalid_attribute', message: expect.stringMatching(message), retryable: false }]);
  });

  it('refuses a chart property of the wrong type', async () => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(jwtAttributes());
    await settle(m.el);
    (m.el as unknown as { chart: unknown }).chart = 42;
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('keeps its token when the dashboard changes under the other protocols (a customer token opens every dashboard)', async () => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount();
    await settle(m.el);
    expect(fetch.mock.calls[0]![1]!.body).toBe('{}');
    m.el.setAttribute('dashboard', 'support');
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(1);
  });
});
