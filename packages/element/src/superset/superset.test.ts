import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { json, mount, ORIGIN, resolved, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';
import { FakeMessageChannel, handshakes, loadSupersetFrame, NO_ANSWER } from '../../test/support/superset-frame.js';
import '../superset.js';
import { ChannelFrames } from '../frame/channel-frames.js';
import { FrameController } from '../frame/frame-controller.js';
import { FRAME_FEATURES } from '../frame/registry.js';
import { FrameRequestError } from '../protocol/frame-protocol.js';
import { nextHeight, SUPERSET_HEIGHT_POLL_MS, SUPERSET_REQUEST_TIMEOUT_MS, SUPERSET_START_TIMEOUT_MS } from './superset-protocol.js';

useElementTestEnvironment();
beforeEach(() => {
  vi.stubGlobal('MessageChannel', FakeMessageChannel);
});

const UUID = '5b7a3c1e-8f2d-4e6a-9c0b-1d2e3f4a5b6c';
const TEMPLATE = `${ORIGIN}/embedded/{dashboard}`;
const attributes = (extra: Record<string, string> = {}) => ({ protocol: 'superset', dashboard: UUID, 'src-template': TEMPLATE, ...extra });
const bodyOf = (fetch: ReturnType<typeof stubFetch>, call: number) => JSON.parse(fetch.mock.calls[call]![1]!.body as string) as Record<string, unknown>;
const errorsOf = (m: Mounted) => m.events.filter((e) => e.type === 'dashboard-error').map((e) => e.detail as { code: string; message: string });

/** A mounted Superset element with its token, its frame loaded and the first height answered. */
async function shown(extra: Record<string, string> = {}, answers: Record<string, (args: unknown) => unknown> = {}) {
  const first = tokenBody(300);
  const second = tokenBody(300);
  const fetch = stubFetch(json(first), json(second));
  const m = await mount(attributes(extra));
  await settle(m.el);
  const frame = loadSupersetFrame(m, answers);
  await settle(m.el);
  return { m, fetch, first, second, frame };
}

/*
 * Every case runs with both frames controllers: the main entry's (a page that loads it too) and
 * the lean one the Superset entry alone registers.
 */
describe.each([
  ["the main entry's frames controller", FrameController],
  ['ChannelFrames (the Superset entry alone)', ChannelFrames],
] as const)('with %s', (_name, Frames) => {
  beforeEach(() => {
    FRAME_FEATURES.frames = Frames;
  });
  afterEach(() => {
    FRAME_FEATURES.frames = FrameController;
  });

  describe('<embedded-dashboard protocol="superset">', () => {
    it('loads /embedded/<uuid> with uiConfig (the data mask always on), no token in the URL, and asks a token for its dashboard', async () => {
      const fetch = stubFetch(json(tokenBody(300)));
      const m = await mount(attributes());
      await settle(m.el);
      expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/embedded/${UUID}?uiConfig=16`);
      expect(bodyOf(fetch, 0)).toEqual({ dashboard: UUID });
      // Nothing goes to the frame before it has loaded: the handshake waits for its `load`.
      expect(m.win.postMessage).not.toHaveBeenCalled();
    });

    it('sets uiConfig bits, the filter bar and URL parameters from attributes', async () => {
      stubFetch(json(tokenBody(300)));
      const m = await mount(
        attributes({
          'hide-title': '',
          'hide-tab': '',
          'hide-chart-controls': '',
          'filters-visible': 'false',
          'filters-expanded': 'true',
          'url-params': 'native_filters_key=abc&standalone=1',
        }),
      );
      await settle(m.el);
      const url = new URL(m.frame.getAttribute('src')!);
      expect(url.pathname).toBe(`/embedded/${UUID}`);
      expect(Object.fromEntries(url.searchParams)).toEqual({
        uiConfig: String(1 + 2 + 8 + 16),
        show_filters: 'false',
        expand_filters: 'true',
        native_filters_key: 'abc',
        standalone: '1',
      });
    });

    it.each([
      ['a dashboard that is no UUID', { dashboard: 'sales' }, /embedded dashboard UUID/],
      ['a dashboard that tries a path', { dashboard: `../${UUID}` }, /embedded dashboard UUID/],
      ['a template with {token}', { 'src-template': `${ORIGIN}/embedded/{dashboard}?t={token}` }, /may not hold \{token\}/],
      ['a non-http template', { 'src-template': 'javascript:alert(1)//{dashboard}' }, /absolute http\(s\) URL/],
      ['filters-visible not a boolean', { 'filters-visible': 'maybe' }, /filters-visible must be true or false/],
      ['filters-expanded not a boolean', { 'filters-expanded': '1' }, /filters-expanded must be true or false/],
      ['url-params too long', { 'url-params': `a=${'x'.repeat(2000)}` }, /url-params must be at most 2000 characters/],
      ['url-params setting uiConfig', { 'url-params': 'uiConfig=0' }, /may not set uiConfig/],
      ['a chart', { chart: 'revenue' }, /chart needs protocol="explo-jwt"/],
      ['a locale-code (an Explo frame option)', { 'locale-code': 'de-DE' }, /not for protocol="superset"/],
      ['a refresh-minutes (an Explo frame option)', { 'refresh-minutes': '5' }, /not for protocol="superset"/],
    ])('refuses %s with invalid_attribute, asks no token and renders no frame', async (_name, extra, message) => {
      const fetch = stubFetch(json(tokenBody(300)));
      const m = await mount(attributes(extra));
      await settle(m.el);
      expect(fetch).not.toHaveBeenCalled();
      expect(m.el.state).toBe('error');
      expect(errorsOf(m)).toEqual([{ code: 'invalid_attribute', message: expect.stringMatching(message), retryable: false }]);
      expect(m.el.shadowRoot!.querySelector('iframe')?.getAttribute('src') ?? null).toBeNull();
    });

    it('hands the frame a port on load (exact origin, one transfer), then the guest token over it, never by window message', async () => {
      const { m, first, frame } = await shown();
      const [message, origin, transfer] = handshakes(m.win)[0]!;
      expect(message).toEqual({ type: '__embedded_comms__', handshake: 'port transfer' });
      expect(origin).toBe(ORIGIN);
      expect(transfer).toHaveLength(1);
      expect(frame.guestTokens()).toEqual([first.token]);
      expect(m.win.postMessage).toHaveBeenCalledTimes(1);
      expect(JSON.stringify(m.win.postMessage.mock.calls.map(([message, target]) => [message, target]))).not.toContain(first.token);
    });

    it('is ready once the frame answers its first height: dashboard-load once, the height applied', async () => {
      const { m, frame } = await shown();
      expect(m.el.state).toBe('ready');
      const loads = m.events.filter((e) => e.type === 'dashboard-load');
      expect(loads.map((e) => (e.detail as { dashboardId: string; height: number }).dashboardId)).toEqual([UUID]);
      expect((loads[0]!.detail as { height: number }).height).toBe(900);
      expect(m.frame.style.getPropertyValue('--embedded-dashboard-height')).toBe('900px');
      frame.answers.getScrollSize = () => ({ width: 800, height: 1200 });
      await vi.advanceTimersByTimeAsync(SUPERSET_HEIGHT_POLL_MS);
      await settle(m.el);
      expect(m.frame.style.getPropertyValue('--embedded-dashboard-height')).toBe('1200px');
      expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
    });

    it('stays loading while the frame has not answered yet, and is an error once it has not started in time (a refusal page): no dashboard-load', async () => {
      const fetch = stubFetch(json(tokenBody(300)));
      const m = await mount(attributes());
      await settle(m.el);
      loadSupersetFrame(m, { getScrollSize: () => NO_ANSWER });
      await vi.advanceTimersByTimeAsync(SUPERSET_START_TIMEOUT_MS - 1_000);
      await settle(m.el);
      expect(m.el.state).toBe('loading');
      await vi.advanceTimersByTimeAsync(1_000);
      await settle(m.el);
      expect(m.el.state).toBe('error');
      expect(m.events.filter((e) => e.type === 'dashboard-error').at(-1)?.detail).toMatchObject({ code: 'frame_refused', retryable: false });
      expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(0);
      // No renewal goes on for a frame that never started.
      await vi.advanceTimersByTimeAsync(600_000);
      expect(m.el.state).toBe('error');
      expect(fetch).toHaveBeenCalledTimes(1);
    });

    it('renews before exp in the running frame: a second guestToken emit on the same port, the same iframe and src, no new handshake', async () => {
      const { m, fetch, first, second, frame } = await shown({ 'refresh-margin': '60' });
      const src = m.frame.getAttribute('src');
      await vi.advanceTimersByTimeAsync(240_000);
      await settle(m.el);
      expect(fetch).toHaveBeenCalledTimes(2);
      expect(fetch.mock.calls[1]![0]).toBe(`${resolved(m.el)}/rotate`);
      expect(bodyOf(fetch, 1)).toEqual({ token: first.token, dashboard: UUID });
      await settle(m.el);
      expect(frame.guestTokens()).toEqual([first.token, second.token]);
      expect(handshakes(m.win)).toHaveLength(1);
      const frames = m.el.shadowRoot!.querySelectorAll('iframe');
      expect(frames).toHaveLength(1);
      expect(frames[0]).toBe(m.frame);
      expect(m.frame.getAttribute('src')).toBe(src);
      expect(m.el.state).toBe('ready');
    });

    it('opens a new port on each load of its frame and closes the old one: the old port is not heard', async () => {
      const { m, first, frame } = await shown();
      const again = loadSupersetFrame(m);
      await settle(m.el);
      expect(frame.port.other.closed).toBe(true);
      expect(again.guestTokens()).toEqual([first.token]);
      frame.emit('observeDataMask', { f1: { filterState: { value: ['x'] } }, crossFiltersChanged: false, nativeFiltersChanged: true });
      await settle(m.el);
      expect(m.events.filter((e) => e.type === 'dashboard-data-mask')).toHaveLength(0);
    });

    it("ignores a load that is not its own frame's, and window messages of any shape from the frame", async () => {
      const { m } = await shown();
      const before = m.events.length;
      const other = document.createElement('iframe');
      m.el.shadowRoot!.append(other);
      other.dispatchEvent(new Event('load'));
      expect(handshakes(m.win)).toHaveLength(1);
      m.fromFrame({ event: 'dashboardLoaded', detail: { dashboardId: UUID, dashboardHeight: 5000, loadTime: 1 } });
      m.fromFrame({ event: 'clicked', detail: {} });
      m.fromFrame({ type: '__embedded_comms__', handshake: 'port transfer' });
      await settle(m.el);
      expect(m.events.slice(before).map((e) => e.type)).toEqual([]);
    });

    it('reports the data mask as dashboard-data-mask, split from what changed', async () => {
      const { m, frame } = await shown();
      frame.emit('observeDataMask', {
        'NATIVE_FILTER-1': { id: 'NATIVE_FILTER-1', filterState: { value: ['EU'] } },
        crossFiltersChanged: false,
        nativeFiltersChanged: true,
      });
      await settle(m.el);
      expect(m.events.filter((e) => e.type === 'dashboard-data-mask').map((e) => e.detail)).toEqual([
        { dataMask: { 'NATIVE_FILTER-1': { id: 'NATIVE_FILTER-1', filterState: { value: ['EU'] } } }, crossFiltersChanged: false, nativeFiltersChanged: true },
      ]);
    });

    it.each([
      ['oversized', { f: { filterState: { value: 'x'.repeat(40_000) } } }],
      ['too deep', { f: { a: { b: { c: { d: { e: { f: { g: { h: 1 } } } } } } } } }],
      ['a prototype key', JSON.parse('{"f":{"__proto__":{"polluted":true}}}') as unknown],
      ['not an object', ['a', 'b']],
      ['a string', 'mask'],
    ])('ignores a data mask that is %s', async (_name, args) => {
      const { m, frame } = await shown();
      frame.emit('observeDataMask', args);
      frame.emit('somethingElse', { f: {} });
      await settle(m.el);
      expect(m.events.filter((e) => e.type === 'dashboard-data-mask')).toHaveLength(0);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('answers the frame: resolvePermalinkUrl with null (its own URL), any other method with an error', async () => {
      const { frame } = await shown();
      const replies: unknown[] = [];
      const listen = frame.port.onmessage!;
      frame.port.onmessage = (event) => {
        replies.push(event.data);
        void listen(event);
      };
      frame.raw({ switchboardAction: 'get', method: 'resolvePermalinkUrl', messageId: 'f1', args: { key: 'k' } });
      frame.raw({ switchboardAction: 'get', method: 'stealCookies', messageId: 'f2' });
      await settle();
      expect(replies).toContainEqual({ switchboardAction: 'reply', messageId: 'f1', result: null });
      expect(replies).toContainEqual({ switchboardAction: 'error', messageId: 'f2', error: 'Method is not defined' });
    });
  });

  describe('the Superset methods', () => {
    it('getDataMask, getActiveTabs and getDashboardPermalink ask the frame and resolve with its checked answers', async () => {
      const { m, frame } = await shown(
        {},
        {
          getDataMask: () => ({ f1: { filterState: { value: [1] } } }),
          getActiveTabs: () => ['TAB-1', 'TAB-2'],
          getDashboardPermalink: (args) => `${ORIGIN}/superset/dashboard/p/${(args as { anchor?: string }).anchor ?? 'none'}/`,
        },
      );
      await expect(m.el.getDataMask()).resolves.toEqual({ f1: { filterState: { value: [1] } } });
      await expect(m.el.getActiveTabs()).resolves.toEqual(['TAB-1', 'TAB-2']);
      await expect(m.el.getDashboardPermalink('CHART-7')).resolves.toBe(`${ORIGIN}/superset/dashboard/p/CHART-7/`);
      const asked = frame.received.filter((x) => x.switchboardAction === 'get').map((x) => (x as { method: string }).method);
      expect(asked).toEqual(expect.arrayContaining(['getDataMask', 'getActiveTabs', 'getDashboardPermalink']));
    });

    const failing = async (call: (m: Mounted) => Promise<unknown>): Promise<FrameRequestError> => {
      try {
        await call(undefined as unknown as Mounted);
      } catch (error) {
        return error as FrameRequestError;
      }
      throw new Error('did not reject');
    };

    it.each([
      ['under another protocol', { protocol: 'explo', dashboard: 'sales', 'src-template': `${ORIGIN}/iframe/{dashboard}/{token}` }],
      ['with no frame (invalid attributes)', { dashboard: 'not-a-uuid' }],
    ])('reject with not_connected %s', async (_name, extra) => {
      stubFetch(json(tokenBody(300)));
      const m = await mount(attributes(extra));
      await settle(m.el);
      for (const asked of [m.el.getDataMask(), m.el.getActiveTabs(), m.el.getDashboardPermalink()]) {
        const error = (await asked.catch((e: unknown) => e)) as FrameRequestError;
        expect(error).toBeInstanceOf(FrameRequestError);
        expect(error.code).toBe('not_connected');
      }
    });

    it('reject with timeout when the frame does not answer, and ignore a late or foreign reply', async () => {
      let id = '';
      const { m, frame } = await shown({}, { getActiveTabs: () => NO_ANSWER });
      const listen = frame.port.onmessage!;
      frame.port.onmessage = (event) => {
        if ((event.data as { method?: string }).method === 'getActiveTabs') id = (event.data as { messageId: string }).messageId;
        void listen(event);
      };
      const asked = m.el.getActiveTabs().catch((error: unknown) => error);
      await settle();
      frame.raw({ switchboardAction: 'reply', messageId: `${id}-not`, result: ['forged'] });
      await vi.advanceTimersByTimeAsync(SUPERSET_REQUEST_TIMEOUT_MS);
      const error = (await asked) as FrameRequestError;
      expect(error.code).toBe('timeout');
      frame.raw({ switchboardAction: 'reply', messageId: id, result: ['late'] });
      await settle();
    });

    it.each([
      ['an error reply', { getDataMask: () => Promise.reject(new Error('boom')) }, (m: Mounted) => m.el.getDataMask(), 'refused'],
      ['tabs that are not strings', { getActiveTabs: () => ['a', 1] }, (m: Mounted) => m.el.getActiveTabs(), 'invalid_response'],
      ['tabs that are not a list', { getActiveTabs: () => ({ 0: 'a' }) }, (m: Mounted) => m.el.getActiveTabs(), 'invalid_response'],
      ['a data mask of the wrong shape', { getDataMask: () => ({ f: 'x' }) }, (m: Mounted) => m.el.getDataMask(), 'invalid_response'],
      ['an oversized data mask', { getDataMask: () => ({ f: { v: 'x'.repeat(40_000) } }) }, (m: Mounted) => m.el.getDataMask(), 'invalid_response'],
      ['a javascript: permalink', { getDashboardPermalink: () => 'javascript:alert(1)' }, (m: Mounted) => m.el.getDashboardPermalink(), 'invalid_response'],
      ['a permalink that is no string', { getDashboardPermalink: () => 42 }, (m: Mounted) => m.el.getDashboardPermalink(), 'invalid_response'],
      ['no result at all', { getActiveTabs: () => undefined }, (m: Mounted) => m.el.getActiveTabs(), 'invalid_response'],
    ])('reject %s', async (_name, answers, call, code) => {
      const { m } = await shown({}, answers);
      const error = await failing(() => call(m));
      expect(error).toBeInstanceOf(FrameRequestError);
      expect(error.code).toBe(code);
      // The frame's own words never reach the page.
      expect(error.message).not.toContain('boom');
    });

    it('refuses an anchor that is not a short string, without asking the frame', async () => {
      const { m, frame } = await shown();
      const before = frame.received.length;
      await expect(m.el.getDashboardPermalink('x'.repeat(201))).rejects.toThrow(TypeError);
      await expect(m.el.getDashboardPermalink(42 as unknown as string)).rejects.toThrow(TypeError);
      await settle();
      expect(frame.received.filter((x) => x.switchboardAction === 'get').length).toBe(
        frame.received.slice(0, before).filter((x) => x.switchboardAction === 'get').length +
          frame.received.slice(before).filter((x) => (x as { method?: string }).method === 'getScrollSize').length,
      );
    });

    it('reject pending requests when the element is removed, and close its port', async () => {
      const { m, frame } = await shown({}, { getDataMask: () => NO_ANSWER });
      const asked = m.el.getDataMask().catch((error: unknown) => error);
      await settle();
      m.el.remove();
      expect(((await asked) as FrameRequestError).code).toBe('not_connected');
      expect(frame.port.other.closed).toBe(true);
    });
  });

  describe('auto height without a feedback loop (superset PR #44313)', () => {
    it('nextHeight: applies the first answer, ignores echoes, stops a growth that repeats itself, follows a shrink', () => {
      expect(nextHeight(900.4, undefined, 0)).toEqual({ height: 901, growth: 0 });
      expect(nextHeight(901, 900, 0)).toBeUndefined();
      expect(nextHeight(1200, 900, 0)).toEqual({ height: 1200, growth: 300 });
      expect(nextHeight(1240, 1200, 300)).toEqual({ height: 1240, growth: 40 });
      expect(nextHeight(1280, 1240, 40)).toBeUndefined();
      expect(nextHeight(700, 1240, 40)).toEqual({ height: 700, growth: 0 });
    });

    it('a frame that reports its own height plus a constant grows once, then stays', async () => {
      const { m, frame } = await shown();
      const frameHeight = () => Number.parseInt(m.frame.style.getPropertyValue('--embedded-dashboard-height'), 10);
      frame.answers.getScrollSize = () => ({ width: 800, height: frameHeight() + 40 });
      for (let i = 0; i < 10; i++) {
        await vi.advanceTimersByTimeAsync(SUPERSET_HEIGHT_POLL_MS);
        await settle(m.el);
      }
      expect(frameHeight()).toBe(940);
      expect(m.events.filter((e) => e.type === 'dashboard-resize').map((e) => (e.detail as { height: number }).height)).toEqual([900, 940]);
    });

    it('a frame that reports its own height (fills its frame) keeps it: no growth', async () => {
      const { m, frame } = await shown();
      frame.answers.getScrollSize = () => ({ width: 800, height: Number.parseInt(m.frame.style.getPropertyValue('--embedded-dashboard-height'), 10) });
      for (let i = 0; i < 5; i++) await vi.advanceTimersByTimeAsync(SUPERSET_HEIGHT_POLL_MS);
      await settle(m.el);
      expect(m.frame.style.getPropertyValue('--embedded-dashboard-height')).toBe('900px');
    });

    it.each([
      ['NaN', { width: 1, height: Number.NaN }],
      ['a string', { width: 1, height: '5000' }],
      ['over the maximum', { width: 1, height: 10_000_000 }],
      ['negative', { width: 1, height: -5 }],
      ['no object', 'tall'],
    ])('ignores a height that is %s', async (_name, size) => {
      const { m, frame } = await shown();
      frame.answers.getScrollSize = () => size;
      for (let i = 0; i < 3; i++) await vi.advanceTimersByTimeAsync(SUPERSET_HEIGHT_POLL_MS);
      await settle(m.el);
      expect(m.frame.style.getPropertyValue('--embedded-dashboard-height')).toBe('900px');
    });

    it('reserves the height remembered from the last view of the dashboard before the frame answers', async () => {
      await shown();
      document.body.replaceChildren();
      stubFetch(json(tokenBody(300)));
      const m = await mount(attributes());
      await settle(m.el);
      expect(m.el.shadowRoot!.querySelector('[part="base"]')!.getAttribute('style') ?? '').toContain('900px');
    });
  });
});
