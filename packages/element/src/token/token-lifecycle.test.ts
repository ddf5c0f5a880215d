import { describe, expect, it, vi } from 'vitest';
import { BACKOFF_CAP_MS, RETRY_AFTER_CAP_MS } from './backoff.js';
import { EXPIRED_RENEWAL_DELAY_MS } from '@embedded-dashboard/protocol';
import { TOKEN_TIMEOUT_MS } from './token-controller.js';
import {
  bffError,
  FakeBroadcastChannel,
  freshTokenUrl,
  json,
  mount,
  nextTokenUrl,
  postedTokens,
  resolved,
  settle,
  stubFetch,
  tokenBody,
  useElementTestEnvironment,
} from '../../test/support/fixtures.js';

useElementTestEnvironment();

const urlOf = (call: unknown[]) => String(call[0]);

describe('token lifecycle', () => {
  it('POSTs {} as JSON to the resolved token-url with same-origin credentials', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { el, events } = await mount();
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    const [url, init] = fetch.mock.calls[0]!;
    expect(url).toBe(resolved(el));
    expect(url).toMatch(/^http.*\/embed\/token$/);
    expect(init).toMatchObject({ method: 'POST', body: '{}', credentials: 'same-origin', headers: { 'Content-Type': 'application/json' } });
    expect(init!.signal).toBeInstanceOf(AbortSignal);
    expect(events.map((e) => [e.type, e.detail.reason])).toEqual([['dashboard-token', 'initial']]);
  });

  it('uses credentials: include with the with-credentials attribute', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { el } = await mount({ 'with-credentials': '', 'token-url': 'https://bff.example.com/embed/token' });
    await settle(el);
    expect(fetch.mock.calls[0]![0]).toBe('https://bff.example.com/embed/token');
    expect(fetch.mock.calls[0]![1]).toMatchObject({ credentials: 'include' });
  });

  it('sends no traceparent without the trace-context module, even with the attribute', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { el } = await mount({ 'trace-context': '' });
    await settle(el);
    expect('traceContext' in el).toBe(false);
    expect(fetch.mock.calls[0]![1]!.headers).toEqual({ 'Content-Type': 'application/json' });
  });

  it('refreshes by rotating at expiresAt - refresh-margin, not before', async () => {
    const first = tokenBody(600);
    const fetch = stubFetch(json(first), json(tokenBody(600)));
    const { el, events } = await mount({ 'refresh-margin': '30' });
    await settle(el);
    await vi.advanceTimersByTimeAsync(570_000 - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(urlOf(fetch.mock.calls[1]!)).toMatch(/\/embed\/token\/rotate$/);
    expect(JSON.parse(String(fetch.mock.calls[1]![1]!.body))).toEqual({ token: first.token });
    await settle(el);
    expect(events.at(-1)!.detail).toEqual({ reason: 'refresh', expiresAt: expect.any(Number) });
  });

  it('corrects the schedule by serverTime when the local clock is behind', async () => {
    // The BFF's clock is 2 minutes ahead; uncorrected, the refresh would come at 660 s.
    const fetch = stubFetch(json(tokenBody(600, 120_000)), json(tokenBody()));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    await vi.advanceTimersByTimeAsync(540_000 - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('corrects the schedule by serverTime when the local clock is ahead', async () => {
    // Uncorrected, the refresh would come at 420 s.
    const fetch = stubFetch(json(tokenBody(600, -120_000)), json(tokenBody()));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    await vi.advanceTimersByTimeAsync(540_000 - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('renews an already expired token after a pause, not at once', async () => {
    const fetch = stubFetch(json(tokenBody(0)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    await vi.advanceTimersByTimeAsync(EXPIRED_RENEWAL_DELAY_MS - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('does not schedule any refresh when expiresAt is null', async () => {
    const fetch = stubFetch(json(tokenBody(null)));
    const { el } = await mount();
    await settle(el);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(30 * 24 * 3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('backs off exponentially with full jitter, within [0, min(cap, 1s·2^n)), and never stops on 5xx', async () => {
    const random = vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const fetch = stubFetch(bffError(503, 'upstream_unavailable'));
    const { el, events } = await mount();
    await settle(el);
    const times: number[] = [Date.now()];
    for (let n = 0; n < 9; n++) {
      const before = fetch.mock.calls.length;
      const ceiling = Math.min(BACKOFF_CAP_MS, 1000 * 2 ** n);
      await vi.advanceTimersByTimeAsync(Math.floor(ceiling * 0.999) - 1);
      expect(fetch.mock.calls.length).toBe(before);
      await vi.advanceTimersByTimeAsync(1);
      expect(fetch.mock.calls.length).toBe(before + 1);
      times.push(Date.now());
    }
    expect(random).toHaveBeenCalled();
    expect(el.state).toBe('error');
    expect(events.filter((e) => e.type === 'dashboard-error').every((e) => e.detail.retryable === true)).toBe(true);
    // 1 h later it is still trying, at most a minute apart.
    const before = fetch.mock.calls.length;
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(fetch.mock.calls.length - before).toBeGreaterThanOrEqual(60);
  });

  it('jitter spreads the delay down to zero', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.25);
    const fetch = stubFetch(bffError(500, 'internal'), bffError(500, 'internal'), json(tokenBody()));
    const { el } = await mount();
    await settle(el);
    await vi.advanceTimersByTimeAsync(249);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(500);
    expect(fetch).toHaveBeenCalledTimes(3);
    await settle(el);
    expect(el.state).toBe('loading');
  });

  it('recovers after many failures: a success resets the backoff and schedules the normal refresh', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    const answers = [...Array.from({ length: 12 }, () => bffError(502, 'upstream_error')), json(tokenBody(600))];
    const fetch = stubFetch(...answers, json(tokenBody(600)));
    const { el, events } = await mount({ 'refresh-margin': '60' });
    while (fetch.mock.calls.length < 13) await vi.advanceTimersToNextTimerAsync();
    await settle(el);
    expect(events.some((e) => e.type === 'dashboard-token' && e.detail.reason === 'initial')).toBe(true);
    const calls = fetch.mock.calls.length;
    await vi.advanceTimersByTimeAsync(540_000 - 1);
    expect(fetch.mock.calls.length).toBe(calls);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch.mock.calls.length).toBe(calls + 1);
    expect(el.state).not.toBe('error');
  });

  it('honours Retry-After on 429', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const fetch = stubFetch(bffError(429, 'rate_limited', { 'Retry-After': '30' }), json(tokenBody()));
    const { el, events } = await mount();
    await settle(el);
    expect(events[0]!.detail).toMatchObject({ code: 'rate_limited', retryable: true });
    await vi.advanceTimersByTimeAsync(29_999);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('keeps the loop alive with an absurd Retry-After (a billion seconds): waits the cap, then asks again', async () => {
    const retryAfter = '999999999';
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const fetch = stubFetch(bffError(429, 'rate_limited', { 'Retry-After': retryAfter }), json(tokenBody()));
    const { el } = await mount();
    await settle(el);
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(RETRY_AFTER_CAP_MS - 1);
    expect(fetch).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it.each(['Infinity', '1e400', '1.5', 'soon'])(
    'treats a Retry-After that is no delay-seconds or HTTP date (%s) as absent: backoff alone',
    async (retryAfter) => {
      vi.spyOn(Math, 'random').mockReturnValue(0);
      const fetch = stubFetch(bffError(429, 'rate_limited', { 'Retry-After': retryAfter }), json(tokenBody()));
      const { el } = await mount();
      await settle(el);
      // Full jitter with random 0: the first retry waits nothing (a honoured Retry-After would hold it).
      await vi.advanceTimersByTimeAsync(1);
      expect(fetch).toHaveBeenCalledTimes(2);
    },
  );

  it('times out a hanging fetch, aborts it, and retries', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    let signal: AbortSignal | undefined;
    const fetch = vi.fn((_: string, init?: RequestInit) => {
      signal = init!.signal!;
      return new Promise<Response>(() => {});
    });
    vi.stubGlobal('fetch', fetch);
    const { el, events } = await mount();
    await vi.advanceTimersByTimeAsync(TOKEN_TIMEOUT_MS - 1);
    expect(events).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(signal!.aborted).toBe(true);
    expect(events[0]!.detail).toEqual({ code: 'timeout', message: 'Token request timed out', retryable: true });
    await el.updateComplete;
    expect(el.state).toBe('error');
    // A zero delay set during a fake-timer tick runs 1 ms later.
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('treats a network failure as transient', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const fetch = stubFetch(() => Promise.reject(new TypeError('Failed to fetch')), json(tokenBody()));
    const { el, events } = await mount();
    await settle(el);
    expect(events[0]!.detail).toMatchObject({ code: 'network', retryable: true });
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('stops on 401 and shows unauthenticated; online and visibility do not restart it', async () => {
    const fetch = stubFetch(bffError(401, 'unauthenticated'));
    const { el, events } = await mount();
    await settle(el);
    expect(el.state).toBe('unauthenticated');
    expect(el.getAttribute('state')).toBe('unauthenticated');
    expect(events[0]!.detail).toEqual({ code: 'unauthenticated', message: 'refused: unauthenticated', retryable: false });
    expect(vi.getTimerCount()).toBe(0);
    window.dispatchEvent(new Event('online'));
    document.dispatchEvent(new Event('visibilitychange'));
    await vi.advanceTimersByTimeAsync(24 * 3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it.each([
    [400, 'bad_request'],
    [403, 'forbidden'],
    [404, 'http_404'],
    // A 5xx the BFF says will not pass (the vendor refusing a chart the dashboard lacks): no call to the vendor a minute.
    [502, 'upstream_error'],
  ])('stops on %i with an error and a retry button that fetches again', async (status, code) => {
    const fetch = stubFetch(status === 404 ? new Response('nope', { status }) : bffError(status, code, {}, false), json(tokenBody()));
    const { el, events } = await mount();
    await settle(el);
    expect(el.state).toBe('error');
    expect(events[0]!.detail).toMatchObject({ code, retryable: false });
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    el.shadowRoot!.querySelector('button')!.click();
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(el.state).toBe('loading');
  });

  it('stops on a 200 whose body is not a token response', async () => {
    const fetch = stubFetch(json({ token: '' }));
    const { el, events } = await mount();
    await settle(el);
    expect(el.state).toBe('error');
    expect(events[0]!.detail).toMatchObject({ code: 'invalid_response', retryable: false });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('retries at once when the browser comes back online after a failure', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.999);
    const fetch = stubFetch(() => Promise.reject(new TypeError('offline')), json(tokenBody()));
    const { el } = await mount();
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    window.dispatchEvent(new Event('online'));
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(el.state).toBe('loading');
  });

  it('refreshes on becoming visible when the refresh is overdue (timers were throttled), not before', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    document.dispatchEvent(new Event('visibilitychange'));
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    // Move the clock without running timers, as a suspended laptop does.
    vi.setSystemTime(Date.now() + 550_000);
    document.dispatchEvent(new Event('visibilitychange'));
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
  });

  it('does not refresh while the page is hidden', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    vi.setSystemTime(Date.now() + 550_000);
    vi.spyOn(document, 'visibilityState', 'get').mockReturnValue('hidden');
    document.dispatchEvent(new Event('visibilitychange'));
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('clears every timer, listener and channel on disconnect, and restarts on reconnect', async () => {
    const added = new Map<string, number>();
    const count = (target: EventTarget) => {
      const add = target.addEventListener.bind(target);
      const remove = target.removeEventListener.bind(target);
      vi.spyOn(target, 'addEventListener').mockImplementation((type, listener, options) => {
        added.set(type, (added.get(type) ?? 0) + 1);
        add(type, listener, options);
      });
      vi.spyOn(target, 'removeEventListener').mockImplementation((type, listener, options) => {
        added.set(type, (added.get(type) ?? 0) - 1);
        remove(type, listener, options);
      });
    };
    count(window);
    count(document);
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    expect(vi.getTimerCount()).toBe(1);
    expect(added.get('online')).toBe(1);
    expect(added.get('visibilitychange')).toBe(1);
    expect(added.get('message')).toBe(1);
    expect(FakeBroadcastChannel.open).toHaveLength(1);

    el.remove();
    expect(vi.getTimerCount()).toBe(0);
    expect([...added.values()].every((n) => n === 0)).toBe(true);
    expect(FakeBroadcastChannel.open).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);

    // Reconnected after the refresh was due: it refreshes at once and listens again.
    document.body.append(el);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(urlOf(fetch.mock.calls[1]!)).toMatch(/\/rotate$/);
    expect(added.get('online')).toBe(1);
    expect(FakeBroadcastChannel.open).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('reconnecting before the refresh is due just re-arms the timer', async () => {
    const fetch = stubFetch(json(tokenBody(600)));
    const { el } = await mount({ 'refresh-margin': '60' });
    await settle(el);
    el.remove();
    document.body.append(el);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('stays stopped when removed with an update still pending', async () => {
    const fetch = stubFetch(json(tokenBody(60)));
    const { el } = await mount();
    await settle(el);
    el.label = 'changed';
    el.remove();
    await settle(el);
    expect(vi.getTimerCount()).toBe(0);
    expect(FakeBroadcastChannel.open).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('sends no retry or refresh while its attributes are invalid, and resumes once they are valid again', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
    // A transient vendor failure (502, retried with backoff), then a malformed chart attribute.
    const fetch = stubFetch(bffError(502, 'upstream_error'), json(tokenBody(600)));
    const { el, events } = await mount({ protocol: 'explo-jwt', chart: 'not-in-this-dashboard' });
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    el.setAttribute('chart', '../x');
    await settle(el);
    expect(events.at(-1)?.detail).toMatchObject({ code: 'invalid_attribute' });
    await vi.advanceTimersByTimeAsync(3600_000);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(vi.getTimerCount()).toBe(0);
    el.setAttribute('chart', 'revenue-by-month');
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(JSON.parse(String(fetch.mock.calls[1]![1]!.body))).toEqual({ dashboard: 'sales', chart: 'revenue-by-month' });
    expect(el.state).not.toBe('error');
  });

  it('aborts a pending request on disconnect: its late answer is ignored', async () => {
    let answer!: (r: Response) => void;
    stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const { el, events } = await mount();
    el.remove();
    answer(json(tokenBody()));
    await settle(el);
    expect(events).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('starts over with a fresh token when token-url changes, without presenting the old token', async () => {
    const fetch = stubFetch(json(tokenBody(600)), json(tokenBody(600)));
    const { el } = await mount();
    await settle(el);
    const other = freshTokenUrl();
    el.setAttribute('token-url', other);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(urlOf(fetch.mock.calls[1]!)).toBe(resolved(el));
    expect(urlOf(fetch.mock.calls[1]!)).toMatch(new RegExp(`${other}$`));
    expect(fetch.mock.calls[1]![1]!.body).toBe('{}');
    expect(FakeBroadcastChannel.open.map((c) => c.name)).toEqual([`embedded-dashboard:${resolved(el)}`]);
    expect(vi.getTimerCount()).toBe(1);
  });

  it('elements with the same token-url share one request in flight', async () => {
    let answer!: (r: Response) => void;
    const fetch = stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const a = await mount();
    const b = await mount({ dashboard: 'other' });
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1);
    const body = tokenBody();
    answer(json(body));
    await settle(a.el);
    await b.el.updateComplete;
    for (const m of [a, b]) {
      m.fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'x' } });
      expect(postedTokens(m.win)).toEqual([body.token]);
    }
  });

  it('a caller rotating a token waits for the rotation in flight instead of rotating twice', async () => {
    const first = tokenBody();
    let answer!: (r: Response) => void;
    const fetch = stubFetch(json(first), () => new Promise<Response>((resolve) => (answer = resolve)));
    const a = await mount();
    const b = await mount({ dashboard: 'other' });
    await settle();
    expect(fetch).toHaveBeenCalledTimes(1);
    a.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    a.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    b.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'other' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    b.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'other' } });
    await settle();
    expect(fetch).toHaveBeenCalledTimes(2);
    const rotated = tokenBody();
    answer(json(rotated));
    await settle();
    expect(fetch).toHaveBeenCalledTimes(2);
    for (const m of [a, b]) {
      m.fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'x' } });
      expect(postedTokens(m.win).at(-1)).toBe(rotated.token);
    }
  });

  it('broadcasts its rotation to the other tabs', async () => {
    const rotated = tokenBody();
    stubFetch(json(tokenBody()), json(rotated));
    const tokenUrl = new URL(nextTokenUrl(), document.baseURI).href;
    const otherTab = new FakeBroadcastChannel(`embedded-dashboard:${tokenUrl}`);
    const { el, fromFrame } = await mount();
    await settle(el);
    fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(el);
    expect(FakeBroadcastChannel.open.find((c) => c !== otherTab)!.sent).toEqual([{ type: 'rotated', tokenUrl, response: rotated, reason: 'rotate' }]);
  });

  it('adopts a newer token rotated in another tab without fetching, and ignores stale or foreign ones', async () => {
    const first = tokenBody();
    const fetch = stubFetch(json(first));
    const tokenUrl = new URL(nextTokenUrl(), document.baseURI).href;
    const otherTab = new FakeBroadcastChannel(`embedded-dashboard:${tokenUrl}`);
    const { el, win, fromFrame, events } = await mount();
    await settle(el);
    fromFrame({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } });
    vi.setSystemTime(Date.now() + 1000);

    otherTab.postMessage({ type: 'rotated', tokenUrl, response: { ...tokenBody(), serverTime: first.serverTime - 1 } });
    otherTab.postMessage({ type: 'rotated', tokenUrl: 'https://elsewhere.example/embed/token', response: tokenBody() });
    otherTab.postMessage({ type: 'rotated', tokenUrl, response: { token: 42 } });
    otherTab.postMessage('garbage');
    otherTab.postMessage(null);
    expect(postedTokens(win)).toEqual([first.token]);

    const rotated = tokenBody();
    otherTab.postMessage({ type: 'rotated', tokenUrl, response: rotated });
    expect(postedTokens(win)).toEqual([first.token, rotated.token]);
    expect(win.postMessage.mock.calls.at(-1)![1]).toBe('https://dash.example.com');
    expect(events.at(-1)!.detail).toEqual({ reason: 'rotate', expiresAt: rotated.expiresAt });
    expect(fetch).toHaveBeenCalledTimes(1);
    await settle(el);
    expect(vi.getTimerCount()).toBe(1);

    // Another holder's renewal on schedule is one here too (the dashboard found no token dead);
    // a reason that is not one of the element's stays a rotation.
    const refreshed = tokenBody();
    otherTab.postMessage({ type: 'rotated', tokenUrl, response: refreshed, reason: 'refresh' });
    expect(events.at(-1)!.detail).toEqual({ reason: 'refresh', expiresAt: refreshed.expiresAt });
    const odd = tokenBody();
    otherTab.postMessage({ type: 'rotated', tokenUrl, response: odd, reason: '<img src=x>' });
    expect(events.at(-1)!.detail).toEqual({ reason: 'rotate', expiresAt: odd.expiresAt });
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('uses the fetchToken property instead of fetch, with the reason and a signal', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const fetchToken = vi.fn(async () => tokenBody());
    const el = document.createElement('embedded-dashboard');
    el.fetchToken = fetchToken;
    el.tokenUrl = nextTokenUrl();
    el.dashboard = 'sales';
    el.srcTemplate = 'https://dash.example.com/{dashboard}';
    document.body.append(el);
    await settle(el);
    expect(fetch).not.toHaveBeenCalled();
    expect(fetchToken).toHaveBeenCalledWith('initial', expect.any(AbortSignal));
  });

  it('a fetchToken that throws TokenRequestError with status 401 stops like the BFF 401', async () => {
    const { TokenRequestError } = await import('./request-token.js');
    const el = document.createElement('embedded-dashboard');
    el.fetchToken = vi.fn(async () => {
      throw new TokenRequestError('unauthenticated', 'signed out', false, 401);
    });
    el.dashboard = 'sales';
    el.srcTemplate = 'https://dash.example.com/{dashboard}';
    document.body.append(el);
    await settle(el);
    expect(el.state).toBe('unauthenticated');
  });
});
