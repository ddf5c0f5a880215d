import { describe, expect, it, vi } from 'vitest';
import '../explo.js';
import type { EmbeddedDashboard } from '../embedded-dashboard.js';
import { json, ORIGIN, postedTokens, settle, stubFetch, TEMPLATE, tokenBody, useElementTestEnvironment } from '../../test/support/fixtures.js';

useElementTestEnvironment();

const ready = { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } };
const loaded = { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 640, loadTime: 50 } };
/** The URL the element builds for its default attributes below. */
const SALES_URL = `${ORIGIN}/iframe/sales?env=Customer`;
let counter = 0;

type Spy = { postMessage: ReturnType<typeof vi.fn> };

/**
 * An `<iframe>` as a server renders it into the element (renderDashboardFrame's markup), with a
 * spy window. `committed`: its cross-origin document is in (`contentDocument` null, as for any
 * cross-origin frame); otherwise it is still on its initial `about:blank`.
 */
function serverFrame(src: string, attributes: Record<string, string> = { slot: 'frame', hidden: '' }, committed = true) {
  const frame = document.createElement('iframe');
  // As renderDashboardFrame renders it by default.
  frame.setAttribute('allow', 'fullscreen');
  for (const [name, value] of Object.entries(attributes)) frame.setAttribute(name, value);
  frame.setAttribute('src', src);
  const win: Spy = { postMessage: vi.fn() };
  Object.defineProperty(frame, 'contentWindow', { value: win, configurable: true });
  const blank = { URL: 'about:blank' };
  Object.defineProperty(frame, 'contentDocument', { get: () => (committed ? null : blank), configurable: true });
  return { frame, win, commit: () => (committed = true) };
}

/** A server-rendered `<embedded-dashboard>`: the children as parsed, then the element upgrades. */
async function mountServerRendered(children: Node[], attributes: Record<string, string> = {}) {
  const el = document.createElement('embedded-dashboard');
  const events: CustomEvent[] = [];
  for (const type of ['dashboard-load', 'dashboard-token', 'dashboard-error', 'dashboard-resize'])
    el.addEventListener(type, (e) => events.push(e as CustomEvent));
  const all = { dashboard: 'sales', 'src-template': TEMPLATE, environment: 'Customer', 'token-url': `/adopt${++counter}/embed/token`, ...attributes };
  for (const [name, value] of Object.entries(all)) el.setAttribute(name, value);
  el.append(...children);
  document.body.append(el);
  await el.updateComplete;
  return { el, events };
}

/** The first token as renderInitialToken puts it in the page. */
function firstTokenScript() {
  const body = tokenBody();
  vi.spyOn(performance, 'timeOrigin', 'get').mockReturnValue(Date.now());
  const script = document.createElement('script');
  script.type = 'application/json';
  script.textContent = JSON.stringify(body);
  return { script, token: body.token };
}

const message = (data: unknown, source: Spy, origin = ORIGIN) =>
  window.dispatchEvent(new MessageEvent('message', { data, origin, source: source as unknown as Window }));

const shadowFrames = (el: EmbeddedDashboard) => el.shadowRoot!.querySelectorAll('iframe');

describe('a frame the server rendered into the element', () => {
  it('rendered shown (no hidden, the element loaded late): never hidden or covered, one dashboard-load however often the dashboard repeats it', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { frame, win } = serverFrame(SALES_URL, { slot: 'frame' });
    const first = firstTokenScript();
    const { el, events } = await mountServerRendered([frame, first.script]);
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name=frame]')!;
    expect(slot.assignedElements()).toEqual([frame]);
    // Still loading as far as the element knows, but the dashboard shows itself: nothing over it.
    expect(el.state).toBe('loading');
    expect(slot.className).toBe('');
    expect(el.shadowRoot!.querySelector('.skeleton')).toBeNull();
    // Handed the token it already runs on; the dashboard answers with where it is.
    expect(postedTokens(win)).toEqual([first.token]);
    message(loaded, win);
    message(loaded, win);
    await settle(el);
    expect(el.state).toBe('ready');
    expect(events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
    expect((slot as HTMLElement).style.getPropertyValue('--embedded-dashboard-height')).toBe('640px');
    expect(fetch).not.toHaveBeenCalled();
  });

  it('replays what its frame said before the element listened (kept by the page loader), through the same checks', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const first = firstTokenScript();
    const { frame, win } = serverFrame(`${ORIGIN}/iframe/sales/${encodeURIComponent(first.token)}/Customer`, { slot: 'frame' });
    const other = { postMessage: vi.fn() };
    const early = [
      new MessageEvent('message', {
        data: { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight: 0 } },
        origin: ORIGIN,
        source: win as unknown as Window,
      }),
      // Another window, and this window from another origin: ignored, as live messages would be.
      new MessageEvent('message', {
        data: { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 900, loadTime: 1 } },
        origin: ORIGIN,
        source: other as unknown as Window,
      }),
      new MessageEvent('message', {
        data: { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 800, loadTime: 1 } },
        origin: 'https://evil.example',
        source: win as unknown as Window,
      }),
      new MessageEvent('message', {
        data: { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 640, loadTime: 50 } },
        origin: ORIGIN,
        source: win as unknown as Window,
      }),
    ];
    (globalThis as { embeddedDashboardMessages?: MessageEvent[] }).embeddedDashboardMessages = early;
    try {
      // The vendor's embed: it says dashboardLoaded once and never again.
      const { el, events } = await mountServerRendered([frame, first.script], {
        protocol: 'explo',
        'src-template': `${ORIGIN}/iframe/{dashboard}/{token}/{environment}`,
      });
      await settle(el);
      // Adopted, shown, and ready from the replayed messages alone.
      expect(frame.isConnected).toBe(true);
      expect(el.shadowRoot!.querySelector('.skeleton, .pending')).toBeNull();
      expect(el.state).toBe('ready');
      expect(events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
      expect(events.find((e) => e.type === 'dashboard-resize')!.detail).toEqual({ height: 640 });
      expect(fetch).not.toHaveBeenCalled();
    } finally {
      delete (globalThis as { embeddedDashboardMessages?: MessageEvent[] }).embeddedDashboardMessages;
    }
  });

  it('a hidden one (the default) is kept hidden under the skeleton until the dashboard says it is loaded', async () => {
    stubFetch(json(tokenBody()));
    const { frame, win } = serverFrame(SALES_URL);
    const first = firstTokenScript();
    const { el } = await mountServerRendered([frame, first.script]);
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name=frame]')!;
    expect(slot.className).toBe('pending');
    expect(el.shadowRoot!.querySelector('.skeleton')).not.toBeNull();
    message(loaded, win);
    await settle(el);
    expect(slot.className).toBe('');
    expect(el.shadowRoot!.querySelector('.skeleton')).toBeNull();
  });

  it('is adopted, not loaded again: shown through the frame slot, handed the first token at once and again when it says ready', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { frame, win } = serverFrame(SALES_URL);
    const first = firstTokenScript();
    const { el, events } = await mountServerRendered([frame, first.script]);
    expect(shadowFrames(el)).toHaveLength(0);
    expect(frame.isConnected).toBe(true);
    expect(frame.getAttribute('src')).toBe(SALES_URL);
    const slot = el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name=frame]')!;
    expect(slot.assignedElements()).toEqual([frame]);
    expect(slot.className).toBe('pending');
    // It may have said ready before the element existed (that message is lost): sent at once.
    expect(postedTokens(win)).toEqual([first.token]);
    expect(win.postMessage).toHaveBeenCalledWith(expect.anything(), ORIGIN);
    message(ready, win);
    expect(postedTokens(win)).toEqual([first.token, first.token]);
    message(loaded, win);
    await settle(el);
    expect(el.state).toBe('ready');
    expect(slot.className).toBe('');
    expect((slot as HTMLElement).style.getPropertyValue('--embedded-dashboard-height')).toBe('640px');
    expect(events.find((e) => e.type === 'dashboard-load')!.detail).toEqual({ dashboardId: 'sales', height: 640, loadTime: 50 });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('counts as inside the element for focus: a refusal moves focus from it to the retry button', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { frame, win } = serverFrame(SALES_URL);
    const first = firstTokenScript();
    const { el } = await mountServerRendered([frame, first.script]);
    message(ready, win);
    message(loaded, win);
    await settle(el);
    frame.focus();
    fetch.mockImplementationOnce(async () => json({ error: { code: 'forbidden', message: 'no', retryable: false } }, 403));
    el.retry();
    await settle(el);
    expect(el.state).toBe('error');
    expect(el.shadowRoot!.activeElement).toBe(el.shadowRoot!.querySelector('button'));
  });

  it('is sent nothing while it is still on its initial about:blank (the message would be refused): the token goes when it says ready', async () => {
    const fetch = stubFetch(json(tokenBody()));
    const { frame, win, commit } = serverFrame(SALES_URL, undefined, false);
    const first = firstTokenScript();
    const { el } = await mountServerRendered([frame, first.script]);
    expect(shadowFrames(el)).toHaveLength(0);
    expect(win.postMessage).not.toHaveBeenCalled();
    commit();
    message(ready, win);
    expect(postedTokens(win)).toEqual([first.token]);
    expect(win.postMessage).toHaveBeenCalledWith(expect.anything(), ORIGIN);
    expect(fetch).not.toHaveBeenCalled();
  });

  it('gets the token when it arrives, if the page carried none (the frame said ready before the element ran)', async () => {
    let answer!: (response: Response) => void;
    stubFetch(() => new Promise<Response>((resolve) => (answer = resolve)));
    const { frame, win } = serverFrame(SALES_URL);
    const { el } = await mountServerRendered([frame]);
    await settle(el);
    expect(postedTokens(win)).toEqual([]);
    const body = tokenBody();
    answer(json(body));
    await settle(el);
    expect(postedTokens(win)).toEqual([body.token]);
    expect(shadowFrames(el)).toHaveLength(0);
  });

  it('keeps rotation working: tokenExpired from the adopted frame fetches a new token and posts it there', async () => {
    const rotated = tokenBody();
    const fetch = stubFetch(json(rotated));
    const { frame, win } = serverFrame(SALES_URL);
    const first = firstTokenScript();
    const { el, events } = await mountServerRendered([frame, first.script]);
    message(loaded, win);
    message({ event: 'tokenExpired', detail: { dashboardId: 'sales' } }, win);
    // The token sent again (the message protocol confirms a report), and the dashboard says it again.
    message({ event: 'tokenExpired', detail: { dashboardId: 'sales' } }, win);
    await settle(el);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(String(fetch.mock.calls[0]![0])).toContain('/rotate');
    expect(postedTokens(win)).toEqual([first.token, first.token, rotated.token]);
    expect(events.filter((e) => e.type === 'dashboard-token').map((e) => e.detail.reason)).toEqual(['initial', 'rotate']);
    expect(frame.isConnected).toBe(true);
  });

  it.each([
    ['another origin', 'https://evil.example.com/iframe/sales?env=Customer'],
    ['another dashboard', `${ORIGIN}/iframe/other?env=Customer`],
    ['an extra query parameter', `${SALES_URL}&token=stolen`],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['a relative URL', '/iframe/sales?env=Customer'],
  ])('is removed, not adopted, when it shows %s; the element loads its own', async (_, src) => {
    stubFetch(json(tokenBody()));
    const { frame, win } = serverFrame(src);
    const first = firstTokenScript();
    const { el } = await mountServerRendered([frame, first.script]);
    expect(frame.isConnected).toBe(false);
    expect(el.shadowRoot!.querySelector('slot[name=frame]')).toBeNull();
    const own = shadowFrames(el);
    expect(own).toHaveLength(1);
    expect(own[0]!.getAttribute('src')).toBe(SALES_URL);
    // The removed frame's messages are not the dashboard's.
    message(ready, win);
    expect(win.postMessage).not.toHaveBeenCalled();
  });

  it('ignores children that are not a frame-slot iframe, and messages from the right frame but another origin', async () => {
    stubFetch(json(tokenBody()));
    const unslotted = serverFrame(SALES_URL, {});
    const div = document.createElement('div');
    div.setAttribute('slot', 'frame');
    const { el } = await mountServerRendered([unslotted.frame, div]);
    expect(shadowFrames(el)).toHaveLength(1);
    expect(el.shadowRoot!.querySelector('slot[name=frame]')).toBeNull();

    const { frame, win } = serverFrame(SALES_URL);
    const first = firstTokenScript();
    const adopted = await mountServerRendered([frame, first.script]);
    win.postMessage.mockClear();
    message(ready, win, 'https://evil.example.com');
    message(loaded, win, 'https://evil.example.com');
    await settle(adopted.el);
    expect(win.postMessage).not.toHaveBeenCalled();
    expect(adopted.el.state).not.toBe('ready');
  });

  it('is removed when the dashboard changes or the attributes become invalid', async () => {
    stubFetch(json(tokenBody()));
    const a = serverFrame(SALES_URL);
    const { el } = await mountServerRendered([a.frame]);
    el.dashboard = 'other';
    await el.updateComplete;
    expect(a.frame.isConnected).toBe(false);
    expect(shadowFrames(el)[0]!.getAttribute('src')).toBe(`${ORIGIN}/iframe/other?env=Customer`);

    const b = serverFrame(SALES_URL);
    const broken = await mountServerRendered([b.frame], { variables: '{not json' });
    expect(broken.el.state).toBe('error');
    expect(b.frame.isConnected).toBe(false);
  });

  it.each<[string, Record<string, string>, Record<string, string>]>([
    ['no sandbox, the element has one', {}, { sandbox: 'allow-scripts allow-same-origin' }],
    ['a looser sandbox', { sandbox: 'allow-scripts allow-same-origin allow-top-navigation' }, { sandbox: 'allow-scripts allow-same-origin' }],
    ['a sandbox, the element has none', { sandbox: 'allow-scripts allow-same-origin' }, {}],
    ['more permissions than the element allows', { allow: 'fullscreen; camera' }, {}],
    ['the default allow, the element has its own', {}, { allow: 'fullscreen; clipboard-write' }],
  ])(
    'is not adopted with %s (a loaded frame keeps what it loaded with): the element loads its own, confined as it says',
    async (_, frameAttributes, elementAttributes) => {
      stubFetch(json(tokenBody()));
      const { frame } = serverFrame(SALES_URL, { slot: 'frame', hidden: '', ...frameAttributes });
      const { el } = await mountServerRendered([frame], elementAttributes);
      expect(frame.isConnected).toBe(false);
      const [own] = shadowFrames(el);
      expect(own!.getAttribute('src')).toBe(SALES_URL);
      expect(own!.getAttribute('sandbox')).toBe(elementAttributes.sandbox ?? null);
      expect(own!.getAttribute('allow')).toBe(elementAttributes.allow ?? 'fullscreen');
    },
  );

  it('is adopted with the same sandbox and allow as the element', async () => {
    stubFetch(json(tokenBody()));
    const confined = { sandbox: 'allow-scripts allow-same-origin', allow: 'fullscreen; clipboard-write' };
    const { frame } = serverFrame(SALES_URL, { slot: 'frame', hidden: '', ...confined });
    const { el } = await mountServerRendered([frame], confined);
    expect(frame.isConnected).toBe(true);
    expect(shadowFrames(el)).toHaveLength(0);
  });

  it('explo: the frame with the first token in its URL is adopted, and replaced (then removed) when a new token swaps in', async () => {
    const rotated = tokenBody();
    stubFetch(json(rotated));
    const first = firstTokenScript();
    const template = `${ORIGIN}/iframe/{dashboard}/{token}/{environment}`;
    const { frame, win } = serverFrame(`${ORIGIN}/iframe/sales/${first.token}/Customer`);
    const { el } = await mountServerRendered([frame, first.script], { protocol: 'explo', 'src-template': template });
    expect(frame.isConnected).toBe(true);
    expect(shadowFrames(el)).toHaveLength(0);
    expect(win.postMessage).not.toHaveBeenCalled(); // explo has no token message
    message({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 500, loadTime: 9 } }, win);
    message({ event: 'customerJwtExpired', detail: {} }, win);
    await settle(el);
    const next = shadowFrames(el);
    expect(next).toHaveLength(1);
    expect(next[0]!.getAttribute('src')).toBe(`${ORIGIN}/iframe/sales/${rotated.token}/Customer`);
    const nextWin: Spy = { postMessage: vi.fn() };
    Object.defineProperty(next[0]!, 'contentWindow', { value: nextWin, configurable: true });
    expect(frame.isConnected).toBe(true); // still visible while the new one loads
    frame.focus();
    message({ event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 500, loadTime: 9 } }, nextWin);
    await settle(el);
    expect(frame.isConnected).toBe(false);
    // The viewer was in the adopted frame: focus goes to the wrapper, not to <body>.
    expect(el.shadowRoot!.activeElement).toBe(el.shadowRoot!.querySelector('[part="base"]'));
    expect(el.shadowRoot!.querySelector('slot[name=frame]')).toBeNull();
    expect(el.state).toBe('ready');
  });
});
