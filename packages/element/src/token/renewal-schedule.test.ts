import { beforeEach, describe, expect, it, vi } from 'vitest';
import { rotationSpacingMs } from '@embedded-dashboard/protocol';
import {
  bffError,
  json,
  mount,
  ORIGIN,
  postedTokens,
  settle,
  stubFetch,
  tokenBody,
  useElementTestEnvironment,
  type Mounted,
} from '../../test/support/fixtures.js';
import { FakeMessageChannel } from '../../test/support/superset-frame.js';
import '../superset.js';

useElementTestEnvironment();
beforeEach(() => {
  vi.stubGlobal('MessageChannel', FakeMessageChannel);
});

/** Mounts an element whose dashboard has loaded: its `state` is then the token's. */
async function mountLoaded(attributes: Record<string, string> = {}): Promise<Mounted> {
  const mounted = await mount(attributes);
  await settle(mounted.el);
  mounted.fromFrame({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 600, loadTime: 100 } });
  await settle(mounted.el);
  return mounted;
}

const S = 1000;
const isRotate = (call: unknown[]) => String(call[0]).endsWith('/rotate');

/** Every value the element's `state` attribute takes, in order, from now on. */
function watchState(el: HTMLElement): string[] {
  const states: string[] = [];
  new MutationObserver(() => states.push(el.getAttribute('state') ?? '')).observe(el, { attributes: true, attributeFilter: ['state'] });
  return states;
}

describe('the renewal schedule follows the lifetime it was given', () => {
  it.each([
    [15, 10],
    [30, 20],
    [300, 240],
    [3600, 3540],
    [86_400, 86_340],
  ])('renews a %i s token once, after %i s, with the default margin, and never inside the BFF spacing', async (ttl, after) => {
    // The 30 s token was renewed after 5 s, inside the BFF's 10 s spacing: one renewal in two was refused.
    const fetch = stubFetch(json(tokenBody(ttl)), json(tokenBody(ttl)));
    const { el } = await mount();
    await settle(el);
    expect(after * S).toBeGreaterThan(rotationSpacingMs(ttl * S));
    await vi.advanceTimersByTimeAsync(after * S - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(isRotate(fetch.mock.calls[1]!)).toBe(true);
  });

  it('keeps a margin the lifetime allows: refresh-margin 60 on a 600 s token, at most a third of a short one', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(45)), json(tokenBody(45)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    await vi.advanceTimersByTimeAsync(540 * S);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(30 * S - 1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(3);
  });
});

describe('a renewal refused for now while the token is valid', () => {
  it('is retried quietly after the BFF\'s "too soon": no dashboard-error, no state but refreshing then ready', async () => {
    const first = tokenBody(30);
    const fetch = stubFetch(json(first), bffError(429, 'rate_limited', { 'Retry-After': '3' }), json(tokenBody(30)));
    const { el, events } = await mountLoaded();
    await settle(el);
    const states = watchState(el);
    await vi.advanceTimersByTimeAsync(20 * S);
    expect(fetch).toHaveBeenCalledTimes(2);
    await settle(el);
    expect(el.state).toBe('refreshing');
    await vi.advanceTimersByTimeAsync(3 * S);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(isRotate(fetch.mock.calls[2]!)).toBe(true);
    expect(JSON.parse(String(fetch.mock.calls[2]![1]!.body))).toEqual({ token: first.token });
    expect(events.filter((e) => e.type === 'dashboard-error')).toEqual([]);
    expect(events.filter((e) => e.type === 'dashboard-token').map((e) => e.detail.reason)).toEqual(['initial', 'refresh']);
    expect(el.state).toBe('ready');
    expect(states.filter((s, i) => s !== states[i - 1])).toEqual(['refreshing', 'ready']);
  });

  it('rides out 503s and timeouts quietly while the token lasts, and reports only the one the retry comes too late for', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    // 30 s: renewed at 20 s; retries back off about 1, 2, 4 s (20 → 21 → 23 → 27, then 8 s: past 30 s).
    const fetch = stubFetch(json(tokenBody(30)), bffError(503, 'upstream_unavailable'));
    const { el, events } = await mountLoaded();
    await settle(el);
    const errors = () => events.filter((e) => e.type === 'dashboard-error');
    await vi.advanceTimersByTimeAsync(20 * S);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(errors()).toEqual([]);
    await vi.advanceTimersByTimeAsync(3 * S);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(4);
    expect(errors()).toEqual([]);
    expect(el.state).toBe('refreshing');
    // The fourth failure's retry (8 s) would land after exp: now it is the page's business.
    await vi.advanceTimersByTimeAsync(4 * S);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(5);
    expect(errors().map((e) => e.detail)).toEqual([{ code: 'upstream_unavailable', message: 'refused: upstream_unavailable', retryable: true }]);
  });

  it('is reported at once when the dashboard said the token is dead (a rotation, not a schedule)', async () => {
    const fetch = stubFetch(json(tokenBody(3600)), bffError(429, 'rate_limited', { 'Retry-After': '5' }), json(tokenBody(3600)));
    const { el, events, fromFrame } = await mountLoaded();
    await settle(el);
    fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(events.filter((e) => e.type === 'dashboard-error').map((e) => e.detail.code)).toEqual(['rate_limited']);
    await vi.advanceTimersByTimeAsync(5 * S);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(el.state).toBe('ready');
  });

  it('reports a final refusal of a scheduled renewal at once (401)', async () => {
    stubFetch(json(tokenBody(30)), bffError(401, 'unauthenticated'));
    const { el, events } = await mountLoaded();
    await settle(el);
    await vi.advanceTimersByTimeAsync(20 * S);
    await settle(el);
    expect(events.filter((e) => e.type === 'dashboard-error').map((e) => e.detail.code)).toEqual(['unauthenticated']);
    expect(el.state).toBe('unauthenticated');
  });
});

describe('elements added to the page later', () => {
  it('take the valid token an element of the same scope holds: no request, and one shared renewal', async () => {
    const held = tokenBody(300);
    const fetch = stubFetch(json(held), json(tokenBody(300)));
    const first = await mountLoaded();
    await vi.advanceTimersByTimeAsync(100 * S);
    const later = await mountLoaded();
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(later.el.state).toBe('ready');
    expect(later.events.filter((e) => e.type === 'dashboard-token').map((e) => e.detail.reason)).toEqual(['initial']);
    later.fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } });
    expect(postedTokens(later.win)).toContain(held.token);
    // Both renew when the first would have (240 s after it got the token), with one request.
    await vi.advanceTimersByTimeAsync(140 * S - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    await settle(later.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(later.el.state).toBe('ready');
    expect(first.el.state).toBe('ready');
  });

  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['another dashboard of a per-dashboard protocol (explo-jwt)', { protocol: 'explo-jwt' }, { protocol: 'explo-jwt', dashboard: 'other' }],
    [
      'another dashboard of superset',
      { protocol: 'superset', dashboard: '5f1b1ba8-7e1c-4f0e-9d3e-2b2f8c1a0d11', 'src-template': `${ORIGIN}/embedded/{dashboard}` },
      { protocol: 'superset', dashboard: '0c9e4f5a-1d2b-4c3e-8f7a-6b5d4c3b2a19', 'src-template': `${ORIGIN}/embedded/{dashboard}` },
    ],
    ['another chart', { protocol: 'explo-jwt', chart: 'c1' }, { protocol: 'explo-jwt', chart: 'c2' }],
    ['another token-url (another BFF, another session)', {}, { 'token-url': '/elsewhere/embed/token' }],
    [
      'other credentials (a cross-origin BFF with or without the session cookie)',
      { 'token-url': 'https://bff.example.com/embed/token' },
      { 'token-url': 'https://bff.example.com/embed/token', 'with-credentials': '' },
    ],
  ])('ask the BFF for %s', async (_label, firstAttributes, laterAttributes) => {
    const fetch = stubFetch(json(tokenBody(300)), json(tokenBody(300)));
    const first = await mount(firstAttributes);
    await settle(first.el);
    const later = await mount(laterAttributes);
    await settle(later.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(postedTokens(later.win)).not.toContain(postedTokens(first.win)[0] ?? 'none');
  });

  it('share a per-dashboard token with an element of the same dashboard', async () => {
    const fetch = stubFetch(json(tokenBody(300)));
    const first = await mount({ protocol: 'explo-jwt' });
    await settle(first.el);
    const later = await mount({ protocol: 'explo-jwt' });
    await settle(later.el);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('ask again once the holder is gone, is due, has failed, or is fed by fetchToken', async () => {
    const fetch = stubFetch(json(tokenBody(300)));
    const gone = await mount();
    await settle(gone.el);
    gone.el.remove();
    await settle((await mount()).el);
    expect(fetch).toHaveBeenCalledTimes(2);

    const fetchToken = vi.fn(async () => tokenBody(300));
    const fed = document.createElement('embedded-dashboard');
    fed.fetchToken = fetchToken;
    Object.assign(fed, { dashboard: 'sales' });
    fed.setAttribute('src-template', 'https://dash.example.com/iframe/{dashboard}?env={environment}');
    fed.setAttribute('environment', 'Customer');
    document.body.append(fed);
    await settle(fed);
    expect(fetchToken).toHaveBeenCalledTimes(1);
    const fedLater = document.createElement('embedded-dashboard');
    fedLater.fetchToken = fetchToken;
    Object.assign(fedLater, { dashboard: 'sales' });
    fedLater.setAttribute('src-template', 'https://dash.example.com/iframe/{dashboard}?env={environment}');
    fedLater.setAttribute('environment', 'Customer');
    document.body.append(fedLater);
    await settle(fedLater);
    expect(fetchToken).toHaveBeenCalledTimes(2);
  });

  it('does not hand on a token that is due', async () => {
    const fetch = stubFetch(json(tokenBody(30)), bffError(503, 'upstream_unavailable'), json(tokenBody(30)));
    const first = await mount();
    await settle(first.el);
    await vi.advanceTimersByTimeAsync(20 * S);
    await settle(first.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    const later = await mount();
    await settle(later.el);
    expect(fetch).toHaveBeenCalledTimes(3);
    expect(isRotate(fetch.mock.calls[2]!)).toBe(false);
  });
});
