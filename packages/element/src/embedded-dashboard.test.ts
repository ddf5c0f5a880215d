import { describe, expect, it, vi } from 'vitest';
import { MAX_DASHBOARD_HEIGHT } from '@embedded-dashboard/protocol';
import { EmbeddedDashboard } from './embedded-dashboard.js';
import { json, mount, ORIGIN, postedTokens, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../test/support/fixtures.js';

useElementTestEnvironment();

const ready = { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } };
const loaded = (height = 640) => ({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: height, loadTime: 321 } });

async function loadedDashboard(attributes: Record<string, string> = {}) {
  const body = tokenBody(600);
  const fetch = stubFetch(json(body), json(tokenBody(600)));
  const m = await mount(attributes);
  await settle(m.el);
  m.fromFrame(ready);
  m.fromFrame(loaded());
  await m.el.updateComplete;
  return { ...m, fetch, body };
}

const frameStyleHeight = (m: Mounted) => m.frame.style.getPropertyValue('--embedded-dashboard-height');

describe('<embedded-dashboard>', () => {
  it('is defined once, typed in HTMLElementTagNameMap, and a second import does not throw', async () => {
    expect(customElements.get('embedded-dashboard')).toBe(EmbeddedDashboard);
    vi.resetModules();
    await expect(import('./index.js')).resolves.toBeDefined();
    expect(customElements.get('embedded-dashboard')).toBe(EmbeddedDashboard);
  });

  it('renders an accessible iframe titled by label or dashboard id, with parts and a live status', async () => {
    stubFetch(json(tokenBody()));
    const { el, frame } = await mount();
    expect(frame.getAttribute('part')).toBe('frame');
    expect(frame.title).toBe('sales');
    expect(frame.getAttribute('src')).toBe('https://dash.example.com/iframe/sales?env=Customer');
    const status = el.shadowRoot!.querySelector('[part="status"]')!;
    expect(status.getAttribute('role')).toBe('status');
    // role=status is a polite live region by definition (WAI-ARIA), no aria-live needed.
    expect(status.textContent).toContain('Loading');
    expect(el.shadowRoot!.querySelector('[part="base"]')!.classList.contains('reserve')).toBe(true);
    expect(el.shadowRoot!.querySelector('slot[name="loading"]')).not.toBeNull();
    el.label = 'Sales overview';
    await el.updateComplete;
    expect(frame.title).toBe('Sales overview');
  });

  it('tells the dashboard its parent origin through the referrer, whatever the page Referrer-Policy', async () => {
    // Browsers without location.ancestorOrigins (Firefox) leave the dashboard only the referrer to
    // learn whom to talk to; a page policy of no-referrer or same-origin would leave it silent.
    stubFetch(json(tokenBody()));
    const { frame } = await mount();
    expect(frame.getAttribute('referrerpolicy')).toBe('strict-origin');
  });

  it('URL-encodes substituted values', async () => {
    stubFetch(json(tokenBody()));
    const { frame } = await mount({ dashboard: 'a/b c?', environment: 'x&y' });
    expect(frame.getAttribute('src')).toBe('https://dash.example.com/iframe/a%2Fb%20c%3F?env=x%26y');
  });

  it('posts updateToken after dashboardReadyToLoad, to the exact origin, and is ready after dashboardLoaded', async () => {
    const body = tokenBody();
    stubFetch(json(body));
    const m = await mount();
    await settle(m.el);
    expect(m.win.postMessage).not.toHaveBeenCalled();
    expect(m.el.state).toBe('loading');
    m.fromFrame(ready);
    expect(m.win.postMessage).toHaveBeenCalledWith({ event: 'updateToken', detail: { token: body.token } }, ORIGIN);
    m.fromFrame(loaded(640));
    await m.el.updateComplete;
    expect(m.el.state).toBe('ready');
    expect(m.el.getAttribute('state')).toBe('ready');
    expect(m.events.find((e) => e.type === 'dashboard-load')!.detail).toEqual({ dashboardId: 'sales', height: 640, loadTime: 321 });
    expect(m.el.shadowRoot!.querySelector('slot')).toBeNull();
  });

  it('rotates on tokenExpired and hands the new token over without touching the iframe', async () => {
    const m = await loadedDashboard();
    const src = m.frame.getAttribute('src');
    const rotated = tokenBody(600);
    m.fetch.mockImplementationOnce(async () => json(rotated));
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(m.el);
    expect(String(m.fetch.mock.calls[1]![0])).toMatch(/\/embed\/token\/rotate$/);
    expect(JSON.parse(String(m.fetch.mock.calls[1]![1]!.body))).toEqual({ token: m.body.token });
    // The first token, sent again once to confirm the report, then the rotated one.
    expect(postedTokens(m.win)).toEqual([m.body.token, m.body.token, rotated.token]);
    expect(m.win.postMessage.mock.calls.every(([, origin]) => origin === ORIGIN)).toBe(true);
    expect(m.el.shadowRoot!.querySelector('iframe')).toBe(m.frame);
    expect(m.frame.getAttribute('src')).toBe(src);
    expect(m.el.state).toBe('ready');
    expect(m.events.at(-1)!.detail).toEqual({ reason: 'rotate', expiresAt: rotated.expiresAt });
  });

  it('confirms a tokenExpired that crossed the renewed token: sent it again, the dashboard runs on it, nothing rotated', async () => {
    const m = await loadedDashboard();
    // The dashboard found the token dead as a renewal (another tile's) ended it, and said so
    // before the new one reached it: its answer to the token sent again is that it runs.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    m.fromFrame(loaded());
    await settle(m.el);
    expect(m.fetch).toHaveBeenCalledTimes(1);
    expect(postedTokens(m.win)).toEqual([m.body.token, m.body.token]);
    expect(m.events.filter((e) => e.type === 'dashboard-error')).toEqual([]);
    expect(m.el.state).toBe('ready');
    // A later report of the same token is no crossing: it is rotated at once.
    const rotated = tokenBody(600);
    m.fetch.mockImplementationOnce(async () => json(rotated));
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(m.el);
    expect(String(m.fetch.mock.calls[1]![0])).toMatch(/\/embed\/token\/rotate$/);
    expect(postedTokens(m.win)).toEqual([m.body.token, m.body.token, rotated.token]);
  });

  it('shows refreshing while a refresh is in flight, then ready', async () => {
    const m = await loadedDashboard();
    let answer!: (r: Response) => void;
    m.fetch.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(m.el);
    expect(m.el.state).toBe('refreshing');
    answer(json(tokenBody()));
    await settle(m.el);
    expect(m.el.state).toBe('ready');
  });

  it.each([
    ['a wrong origin', { origin: 'https://evil.example.com' }],
    ['a look-alike origin', { origin: 'https://dash.example.com.evil.com' }],
    ['another window', { source: {} }],
    ['no source', { source: null }],
  ])('ignores messages from %s', async (_, init) => {
    const m = await loadedDashboard();
    const before = m.win.postMessage.mock.calls.length;
    const events = m.events.length;
    m.fromFrame(ready, init);
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } }, init);
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } }, init);
    m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: 900 } }, init);
    m.fromFrame({ event: 'variableUpdated', detail: { varName: 'a', newValue: 1 } }, init);
    await settle(m.el);
    expect(m.win.postMessage.mock.calls.length).toBe(before);
    expect(m.fetch).toHaveBeenCalledTimes(1);
    expect(m.events.length).toBe(events);
  });

  it.each([
    ['a string', 'dashboardLoaded'],
    ['null', null],
    ['an unknown event whose detail is not JSON', { event: 'pwned', detail: { at: new Date() } }],
    ['a missing detail', { event: 'dashboardResized' }],
    ['a string height', { event: 'dashboardResized', detail: { dashboardHeight: '900' } }],
    ['a value that is not JSON', { event: 'variableUpdated', detail: { varName: 'a', newValue: Number.NaN } }],
  ])('ignores a malformed message: %s', async (_, data) => {
    const m = await loadedDashboard();
    const events = m.events.length;
    const posted = m.win.postMessage.mock.calls.length;
    m.fromFrame(data);
    await settle(m.el);
    expect(m.events.length).toBe(events);
    expect(m.win.postMessage.mock.calls.length).toBe(posted);
  });

  it('auto-resizes, growing and shrinking, and ignores absurd heights', async () => {
    const m = await loadedDashboard();
    expect(frameStyleHeight(m)).toBe('640px');
    m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: 1200.4 } });
    await m.el.updateComplete;
    expect(frameStyleHeight(m)).toBe('1201px');
    m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: 300 } });
    await m.el.updateComplete;
    expect(frameStyleHeight(m)).toBe('300px');
    for (const h of [0, -50, MAX_DASHBOARD_HEIGHT + 1, 1e12, Number.NaN, Number.POSITIVE_INFINITY]) {
      m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: h } });
    }
    await m.el.updateComplete;
    expect(frameStyleHeight(m)).toBe('300px');
    m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: MAX_DASHBOARD_HEIGHT } });
    await m.el.updateComplete;
    expect(frameStyleHeight(m)).toBe(`${MAX_DASHBOARD_HEIGHT}px`);
    expect(m.events.filter((e) => e.type === 'dashboard-resize').map((e) => e.detail.height)).toEqual([640, 1201, 300, MAX_DASHBOARD_HEIGHT]);
    expect(m.el.shadowRoot!.querySelector('[part="base"]')!.classList.contains('reserve')).toBe(false);
  });

  it('keeps its CSS height with no-auto-resize, still reporting dashboard-resize', async () => {
    const m = await loadedDashboard({ 'no-auto-resize': '' });
    expect(frameStyleHeight(m) ?? '').toBe('');
    expect(m.events.some((e) => e.type === 'dashboard-resize')).toBe(true);
  });

  it('posts variables after load and again when the attribute changes', async () => {
    const m = await loadedDashboard({ variables: '{"region":"EU","year":2026}' });
    const variableMessages = () => m.win.postMessage.mock.calls.filter(([msg]) => msg.event === 'updateVariables');
    expect(variableMessages()).toEqual([[{ event: 'updateVariables', detail: { variables: { region: 'EU', year: 2026 } } }, ORIGIN]]);
    m.el.setAttribute('variables', '{"region":"US"}');
    await m.el.updateComplete;
    expect(variableMessages().at(-1)).toEqual([{ event: 'updateVariables', detail: { variables: { region: 'US' } } }, ORIGIN]);
    m.el.variables = { plan: 'pro' };
    await m.el.updateComplete;
    expect(variableMessages().at(-1)![0].detail.variables).toEqual({ plan: 'pro' });
  });

  it('does not post variables before the dashboard has loaded', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount({ variables: '{"region":"EU"}' });
    await settle(m.el);
    m.fromFrame(ready);
    m.el.setAttribute('variables', '{"region":"US"}');
    await m.el.updateComplete;
    expect(m.win.postMessage.mock.calls.filter(([msg]) => msg.event === 'updateVariables')).toEqual([]);
  });

  it('reports variableUpdated as dashboard-variable-change, bubbling and composed', async () => {
    const m = await loadedDashboard();
    const seen: Event[] = [];
    document.addEventListener('dashboard-variable-change', (e) => seen.push(e));
    m.fromFrame({ event: 'variableUpdated', detail: { varName: 'region', newValue: 'EU' } });
    expect(seen).toHaveLength(1);
    const event = seen[0] as CustomEvent;
    expect(event.bubbles && event.composed).toBe(true);
    expect(event.detail).toEqual({ name: 'region', value: 'EU' });
  });

  it('reloads the iframe only when the dashboard changes, and then waits for the new frame', async () => {
    const m = await loadedDashboard();
    m.el.dashboard = 'churn';
    await m.el.updateComplete;
    expect(m.el.shadowRoot!.querySelector('iframe')).toBe(m.frame);
    expect(m.frame.getAttribute('src')).toBe('https://dash.example.com/iframe/churn?env=Customer');
    expect(m.el.state).toBe('loading');
  });

  it('follows a template whose origin differs per dashboard: messages and posts use the current one', async () => {
    const body = tokenBody();
    stubFetch(json(body));
    const m = await mount({ 'src-template': 'https://{dashboard}.dash.example.com/' });
    await settle(m.el);
    m.fromFrame(ready);
    expect(m.win.postMessage).not.toHaveBeenCalled();
    m.fromFrame(ready, { origin: 'https://sales.dash.example.com' });
    expect(m.win.postMessage).toHaveBeenCalledWith({ event: 'updateToken', detail: { token: body.token } }, 'https://sales.dash.example.com');
    m.el.dashboard = 'churn';
    await m.el.updateComplete;
    m.win.postMessage.mockClear();
    m.fromFrame(ready, { origin: 'https://sales.dash.example.com' });
    expect(m.win.postMessage).not.toHaveBeenCalled();
    m.fromFrame(ready, { origin: 'https://churn.dash.example.com' });
    expect(m.win.postMessage).toHaveBeenCalledWith({ event: 'updateToken', detail: { token: body.token } }, 'https://churn.dash.example.com');
  });

  it('puts the token in the src for a {token} template, and keeps that src on rotation', async () => {
    const body = { ...tokenBody(), token: 'a.b~c_d-e' };
    const fetch = stubFetch(json(body));
    const m = await mount({ 'src-template': `${ORIGIN}/embed/{dashboard}?token={token}` });
    expect(m.frame.hidden).toBe(true);
    expect(m.frame.hasAttribute('src')).toBe(false);
    await settle(m.el);
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/embed/sales?token=a.b~c_d-e`);
    fetch.mockImplementationOnce(async () => json(tokenBody()));
    m.fromFrame(ready);
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await settle(m.el);
    // At ready, once more to confirm the report, then the rotated one.
    expect(postedTokens(m.win)).toHaveLength(3);
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/embed/sales?token=a.b~c_d-e`);
  });

  it('refuses a token that a {token} template would need to escape: no src, state error', async () => {
    stubFetch(json({ ...tokenBody(), token: 'a b/c?d=e&f' }));
    const m = await mount({ 'src-template': `${ORIGIN}/embed/{dashboard}?token={token}` });
    await settle(m.el);
    expect(m.frame.hasAttribute('src')).toBe(false);
    expect(m.el.state).toBe('error');
    expect(m.events.at(-1)!.detail).toMatchObject({ code: 'invalid_response', retryable: false });
  });

  it('adds no attribute of its own before the first token answer (hydration-safe), then reflects state', async () => {
    let answer!: (response: Response) => void;
    stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const m = await mount();
    await m.el.updateComplete;
    expect(m.el.state).toBe('loading');
    expect(m.el.hasAttribute('state')).toBe(false);
    answer(json(tokenBody()));
    await settle(m.el);
    m.fromFrame(ready);
    m.fromFrame(loaded());
    await m.el.updateComplete;
    expect(m.el.getAttribute('state')).toBe('ready');
  });

  it.each([
    ['no dashboard', { dashboard: '' }, 'dashboard is required'],
    ['bad variables JSON', { variables: '{region:' }, 'variables must be'],
    ['variables that are an array', { variables: '[1]' }, 'variables must be'],
    ['variables nested too deep', { variables: '{"a":{"b":{"c":{"d":{"e":{"f":1}}}}}}' }, 'maxDepth'],
    ['no src-template', { 'src-template': '' }, 'src-template is required'],
    ['a relative template', { 'src-template': '/iframe/{dashboard}' }, 'absolute http(s) URL'],
    ['a javascript: template', { 'src-template': 'javascript:alert(1)//{dashboard}' }, 'absolute http(s) URL'],
    ['a data: template', { 'src-template': 'data:text/html,{dashboard}' }, 'absolute http(s) URL'],
    ['an unparseable origin', { 'src-template': 'https://exa mple.com/{dashboard}' }, 'absolute http(s) URL'],
    ['a javascript: dashboard id in a bare template', { 'src-template': '{dashboard}', dashboard: 'javascript:alert(1)' }, 'absolute http(s) URL'],
    ['a dashboard id breaking out of the host', { 'src-template': 'https://{dashboard}.example.com/', dashboard: 'evil.com/x' }, 'absolute http(s) URL'],
    ['a refresh-margin that is not a number', { 'refresh-margin': 'soon' }, 'refresh-margin'],
    ['a negative refresh-margin', { 'refresh-margin': '-60' }, 'refresh-margin'],
  ])('%s gives the error state and a dashboard-error event, not a throw', async (_, attributes, message) => {
    const fetch = stubFetch(json(tokenBody()));
    const m = await mount(attributes);
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(m.events).toEqual([expect.objectContaining({ type: 'dashboard-error' })]);
    expect(m.events[0]!.detail).toEqual({ code: 'invalid_attribute', message: expect.stringContaining(message), retryable: false });
    expect(m.frame.hidden).toBe(true);
    expect(fetch).not.toHaveBeenCalled();
    expect(m.el.shadowRoot!.querySelector('slot[name="error"]')!.textContent).toContain(message);
  });

  it('recovers when an invalid attribute is fixed', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const m = await mount({ variables: 'nope' });
    m.el.setAttribute('variables', '{}');
    await settle(m.el);
    expect(m.el.state).toBe('loading');
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('a slotted error UI replaces the default one', async () => {
    stubFetch(json({ error: { code: 'forbidden', message: 'no', retryable: false } }, 403));
    const m = await mount();
    const custom = document.createElement('p');
    custom.slot = 'error';
    m.el.append(custom);
    await settle(m.el);
    const slot = m.el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="error"]')!;
    expect(slot.assignedElements()).toEqual([custom]);
  });

  it('retry() starts over after a refusal, for a slotted error UI without the default button', async () => {
    const fetch = stubFetch(json({ error: { code: 'unauthenticated', message: 'no', retryable: false } }, 401), json(tokenBody()));
    const m = await mount();
    await settle(m.el);
    expect(m.el.state).toBe('unauthenticated');
    m.el.retry();
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(m.el.state).toBe('loading');
    expect(m.events.at(-1)!.detail).toEqual({ reason: 'initial', expiresAt: expect.any(Number) });
  });

  it('keeps the token out of dashboard-error and the status text when the BFF echoes it back', async () => {
    const m = await loadedDashboard();
    const echo = (status: number, retryable: boolean) =>
      json({ error: { code: `bad_${m.body.token}`, message: `token ${m.body.token} refused`, retryable } }, status);
    m.fetch.mockImplementationOnce(async () => echo(500, true)).mockImplementationOnce(async () => echo(403, false));
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await vi.advanceTimersByTimeAsync(120_000);
    await m.el.updateComplete;
    const errors = m.events.filter((e) => e.type === 'dashboard-error');
    expect(errors.map((e) => e.detail.retryable)).toEqual([true, false]);
    expect(errors[0]!.detail.message).toBe('token [token] refused');
    const serialized = JSON.stringify(errors.map((e) => e.detail)) + m.el.shadowRoot!.textContent;
    expect(serialized).not.toContain(m.body.token);
  });

  it('cuts an oversized error message from the BFF short', async () => {
    stubFetch(json({ error: { code: 'internal', message: 'x'.repeat(100_000), retryable: true } }, 500));
    const m = await mount();
    await settle(m.el);
    expect(m.events[0]!.detail.message.length).toBeLessThanOrEqual(200);
  });

  it('never puts the token in any event detail or in the status text', async () => {
    const m = await loadedDashboard({ variables: '{"a":1}' });
    m.fetch.mockImplementationOnce(async () => json({ error: { code: 'internal', message: 'boom', retryable: true } }, 500));
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    m.fromFrame({ event: 'tokenExpired', detail: { dashboardId: 'sales' } });
    await vi.advanceTimersByTimeAsync(120_000);
    m.fromFrame({ event: 'dashboardResized', detail: { dashboardHeight: 10 } });
    m.fromFrame({ event: 'variableUpdated', detail: { varName: 'a', newValue: 2 } });
    const tokens = postedTokens(m.win);
    expect(tokens.length).toBeGreaterThan(1);
    expect(new Set(m.events.map((e) => e.type)).size).toBe(5);
    const serialized = JSON.stringify(m.events.map((e) => e.detail)) + m.el.shadowRoot!.textContent + m.el.outerHTML;
    for (const token of tokens) expect(serialized).not.toContain(token);
  });
});

describe('<embedded-dashboard> focus on error and retry (ARCHITECTURE §5.2)', () => {
  const refusal = () => json({ error: { code: 'forbidden', message: 'no', retryable: false } }, 403);
  const inShadow = (m: Mounted) => m.el.shadowRoot!.activeElement;
  const part = (m: Mounted, name: string) => m.el.shadowRoot!.querySelector(`[part="${name}"]`);

  it('moves focus that was in the dashboard to the retry button when the error UI appears, and to the wrapper when retry removes the button', async () => {
    const m = await loadedDashboard();
    m.fetch.mockImplementationOnce(async () => refusal());
    m.frame.focus();
    expect(inShadow(m)).toBe(m.frame);
    m.el.retry();
    await settle(m.el);
    expect(m.el.state).toBe('error');
    const button = m.el.shadowRoot!.querySelector('button')!;
    expect(inShadow(m)).toBe(button);
    expect(document.activeElement).toBe(m.el);
    // Pressing retry removes the button: focus goes to the wrapper (tabindex -1), not to <body>.
    m.fetch.mockImplementationOnce(async () => refusal());
    button.click();
    await m.el.updateComplete;
    expect(m.el.state).toBe('refreshing');
    expect(m.el.shadowRoot!.querySelector('button')).toBeNull();
    expect(inShadow(m)).toBe(part(m, 'base'));
    expect(part(m, 'base')!.getAttribute('tabindex')).toBe('-1');
    // The retry fails too: focus, still inside, goes back to the new retry button.
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(inShadow(m)).toBe(m.el.shadowRoot!.querySelector('button'));
    // And a retry that works leaves focus on the wrapper, in front of the dashboard.
    m.fetch.mockImplementationOnce(async () => json(tokenBody(600)));
    m.el.shadowRoot!.querySelector('button')!.click();
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(inShadow(m)).toBe(part(m, 'base'));
  });

  it('never takes focus from the rest of the page', async () => {
    const input = document.createElement('input');
    document.body.append(input);
    const m = await loadedDashboard();
    input.focus();
    m.fetch.mockImplementationOnce(async () => refusal());
    m.el.retry();
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(document.activeElement).toBe(input);
    expect(inShadow(m)).toBeNull();
    // Nor when the error UI goes away again.
    m.fetch.mockImplementationOnce(async () => json(tokenBody(600)));
    m.el.retry();
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(document.activeElement).toBe(input);
  });

  it('leaves focus alone when nothing in the element had it: a first failure focuses nothing', async () => {
    stubFetch(refusal());
    const m = await mount();
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(inShadow(m)).toBeNull();
    expect(document.activeElement).toBe(document.body);
  });

  it('keeps focus that stays in place: the dashboard frame keeps it through a refresh', async () => {
    const m = await loadedDashboard();
    m.frame.focus();
    m.el.retry();
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(inShadow(m)).toBe(m.frame);
  });
});
