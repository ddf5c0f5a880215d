import { describe, expect, it, vi } from 'vitest';
import { FRAME_PROTOCOLS } from '../index.js';
import { FRAME_SWAP_TIMEOUT_MS } from '../frame/frame-controller.js';
import * as exploEntry from '../explo.js';
import { json, mount, ORIGIN, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';
import { exploJwtProtocol } from '../explo/explo-jwt-protocol.js';
import { exploProtocol } from '../explo/explo-protocol.js';
import { messageProtocol } from './message-protocol.js';

useElementTestEnvironment();

/** An element with no vendor attributes (the explo adapters read none). */
const NO_ATTRIBUTES = document.createElement('div');
const EXPLO_TEMPLATE = `${ORIGIN}/iframe/{dashboard}/{token}/{environment}`;

describe('frame protocol adapters', () => {
  it('are all built into the element; the explo entry only exports the same adapters', () => {
    expect(Object.keys(FRAME_PROTOCOLS)).toEqual(['message', 'explo', 'explo-jwt']);
    expect(FRAME_PROTOCOLS.message).toBe(messageProtocol);
    expect(FRAME_PROTOCOLS.explo).toBe(exploProtocol);
    expect(FRAME_PROTOCOLS['explo-jwt']).toBe(exploJwtProtocol);
    expect(exploEntry.exploProtocol).toBe(exploProtocol);
    expect(exploEntry.exploJwtProtocol).toBe(exploJwtProtocol);
  });

  it("explo-jwt: the embed token in the path, the vendor's events, later tokens posted as updateCustomerJwt, tokens per dashboard", () => {
    const url = exploJwtProtocol.src(
      `${ORIGIN}/iframe/{token}/{environment}`,
      { dashboard: 'sales', environment: 'production', token: 'eyJ.x..y.z' },
      { region: 'EU' },
      NO_ATTRIBUTES,
    );
    expect(url!.href).toBe(`${ORIGIN}/iframe/eyJ.x..y.z/production?region=%22EU%22`);
    expect(exploJwtProtocol.src(`${ORIGIN}/iframe/{token}/{environment}`, { dashboard: 'sales' }, {}, NO_ATTRIBUTES)).toBeUndefined();
    expect(exploJwtProtocol.swap).toBe(false);
    expect(exploJwtProtocol.perDashboard).toBe(true);
    expect(exploJwtProtocol.token!('jwt-2')).toEqual({ event: 'updateCustomerJwt', detail: { jwt: 'jwt-2' } });
    expect(exploJwtProtocol.parse({ event: 'customerJwtExpired' })).toEqual({ event: 'tokenExpired', detail: { dashboardId: '' } });
    expect(exploJwtProtocol.parse({ event: 'tokenExpired', detail: { dashboardId: 'x' } })).toBeUndefined();
    expect(exploJwtProtocol.variables!({ seats: 3 })).toEqual(exploProtocol.variables!({ seats: 3 }));
    expect(exploProtocol.perDashboard).toBeUndefined();
    expect(messageProtocol.perDashboard).toBeUndefined();
  });

  it('message: every message both ways in our own shapes (ARCHITECTURE §6)', () => {
    expect(messageProtocol.token!('t')).toEqual({ event: 'updateToken', detail: { token: 't' } });
    expect(messageProtocol.variables!({ region: 'EU' })).toEqual({ event: 'updateVariables', detail: { variables: { region: 'EU' } } });
    expect(messageProtocol.parse({ event: 'tokenExpired', detail: { dashboardId: 'd' } })).toEqual({ event: 'tokenExpired', detail: { dashboardId: 'd' } });
    expect(messageProtocol.parse({ event: 'customerJwtExpired', detail: {} })).toBeUndefined();
  });

  it('explo: builds the documented URL with the token in the path and JSON-quoted variables in the query', () => {
    const url = exploProtocol.src(
      EXPLO_TEMPLATE,
      { dashboard: 'sales', environment: 'production', token: 'ct/1' },
      { region: 'EU', seats: 5, trial: false, note: null },
      NO_ATTRIBUTES,
    );
    expect(url!.pathname).toBe('/iframe/sales/ct%2F1/production');
    expect(Object.fromEntries(url!.searchParams)).toEqual({ region: '"EU"', seats: '5', trial: 'false', note: 'null' });
    expect(exploProtocol.src(EXPLO_TEMPLATE, { dashboard: 'sales' }, {}, NO_ATTRIBUTES)).toBeUndefined();
    expect(exploProtocol.swap).toBe(true);
    expect(exploProtocol.token).toBeUndefined();
  });

  it.each([
    [
      { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight: 640 } },
      { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight: 640 } },
    ],
    [
      { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales', dashboardHeight: 'tall' } },
      { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } },
    ],
    [
      { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 700, loadTime: 12 } },
      { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 700, loadTime: 12 } },
    ],
    [
      { event: 'dashboardUpdated', detail: { dashboardHeight: 800 } },
      { event: 'dashboardResized', detail: { dashboardHeight: 800 } },
    ],
    [
      { event: 'sendVariableUpdatedEvent', detail: { varName: 'region', newValue: 'US' } },
      { event: 'variableUpdated', detail: { varName: 'region', newValue: 'US' } },
    ],
    [{ event: 'customerJwtExpired' }, { event: 'tokenExpired', detail: { dashboardId: '' } }],
    [
      { event: 'customerJwtExpired', detail: 'anything' },
      { event: 'tokenExpired', detail: { dashboardId: '' } },
    ],
  ])('explo: reads the vendor event %j', (data, expected) => {
    expect(exploProtocol.parse(data)).toEqual(expected);
  });

  it.each([
    null,
    'customerJwtExpired',
    [],
    { event: '__proto__', detail: {} },
    { event: 'constructor', detail: {} },
    { event: 'dashboardUpdated', detail: { dashboardHeight: 'tall' } },
    { event: 'dashboardLoaded', detail: { dashboardId: 1, dashboardHeight: 1, loadTime: 1 } },
    { event: 'sendVariableUpdatedEvent', detail: { varName: 'x', newValue: [[[[['too deep']]]]] } },
    { event: 'updateExploDashboardVariables', detail: { variables: [] } },
    { event: 'updateCustomerJwt', detail: { jwt: 'x' } },
    { event: 'dashboardUpdated' },
  ])('explo: ignores malformed or hostile data %j', (data) => {
    expect(exploProtocol.parse(data)).toBeUndefined();
  });

  it('explo: sends variables as updateExploDashboardVariables { variables: [{ varName, value }] }', () => {
    expect(exploProtocol.variables!({ region: 'EU', seats: 3 })).toEqual({
      event: 'updateExploDashboardVariables',
      detail: {
        variables: [
          { varName: 'region', value: 'EU' },
          { varName: 'seats', value: 3 },
        ],
      },
    });
  });
});

/** Gives every iframe the element renders a spy window, as happy-dom loads no pages. */
function spyWindows(m: Mounted) {
  const wins = new Map<HTMLIFrameElement, { postMessage: ReturnType<typeof vi.fn> }>();
  for (const frame of m.el.shadowRoot!.querySelectorAll('iframe')) {
    if (!wins.has(frame) && frame !== m.frame) {
      const win = { postMessage: vi.fn() };
      Object.defineProperty(frame, 'contentWindow', { value: win, configurable: true });
      wins.set(frame, win);
    }
  }
  return wins;
}
const frames = (m: Mounted) => [...m.el.shadowRoot!.querySelectorAll('iframe')];
const send = (source: unknown, data: unknown, origin = ORIGIN) => window.dispatchEvent(new MessageEvent('message', { data, origin, source: source as Window }));
const vendorLoaded = { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 640, loadTime: 5 } };

/** The frames' confinement in the explo tests: every frame must carry it, the swapped-in one too. */
const CONFINED = { sandbox: 'allow-scripts allow-same-origin allow-popups', allow: 'fullscreen; clipboard-write' };

async function exploDashboard() {
  const first = tokenBody(600);
  const second = tokenBody(600);
  const fetch = stubFetch(json(first), json(second));
  const m = await mount({ protocol: 'explo', 'src-template': EXPLO_TEMPLATE, environment: 'production', variables: '{"region":"EU"}', ...CONFINED });
  await settle(m.el);
  send(m.win, vendorLoaded);
  await m.el.updateComplete;
  return { m, fetch, first, second };
}

describe('<embedded-dashboard protocol="explo">', () => {
  it('loads the token URL, posts nothing with a token, and is ready on dashboardLoaded', async () => {
    const { m, first } = await exploDashboard();
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/iframe/sales/${first.token}/production?region=%22EU%22`);
    expect(m.el.state).toBe('ready');
    expect(m.win.postMessage.mock.calls.map(([msg]) => msg.event)).toEqual(['updateExploDashboardVariables']);
    expect(JSON.stringify(m.win.postMessage.mock.calls)).not.toContain(first.token);
  });

  it('rotates on customerJwtExpired by loading the new URL in a hidden second frame, swapping only when it has loaded', async () => {
    const { m, fetch, second } = await exploDashboard();
    const events: string[] = [];
    m.el.addEventListener('dashboard-token', (e) => events.push((e as CustomEvent).detail.reason));
    send(m.win, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(String(fetch.mock.calls[1]![0])).toMatch(/\/rotate$/);
    expect(events).toEqual(['rotate']);
    const [visible, next] = frames(m);
    expect(visible).toBe(m.frame);
    expect(next!.getAttribute('src')).toBe(`${ORIGIN}/iframe/sales/${second.token}/production?region=%22EU%22`);
    expect(next!.className).toBe('pending next');
    expect(visible!.className).toBe('');
    for (const frame of [visible!, next!]) {
      expect(frame.getAttribute('sandbox')).toBe(CONFINED.sandbox);
      expect(frame.getAttribute('allow')).toBe(CONFINED.allow);
      expect(frame.getAttribute('referrerpolicy')).toBe('strict-origin');
    }
    const [nextWin] = spyWindows(m).values();
    // Anything but dashboardLoaded from the new frame changes nothing; a forged origin neither.
    send(nextWin, { event: 'dashboardUpdated', detail: { dashboardHeight: 999 } });
    send(nextWin, vendorLoaded, 'https://evil.example');
    await m.el.updateComplete;
    expect(frames(m)).toHaveLength(2);
    send(nextWin, vendorLoaded);
    await m.el.updateComplete;
    expect(frames(m)).toEqual([next]);
    expect(next!.className).toBe('');
    expect((next as HTMLElement).style.getPropertyValue('--embedded-dashboard-height')).toBe('640px');
    expect(m.el.state).toBe('ready');
    // Messages from the dropped frame are ignored from now on; the new one is heard.
    send(m.win, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(nextWin!.postMessage).toHaveBeenCalledWith(
      { event: 'updateExploDashboardVariables', detail: { variables: [{ varName: 'region', value: 'EU' }] } },
      ORIGIN,
    );
  });

  it('does not rotate the new token when the outgoing frame reports its own, already renewed one dead (issue 39)', async () => {
    const { m, fetch, second } = await exploDashboard();
    const errors: unknown[] = [];
    m.el.addEventListener('dashboard-error', (e) => errors.push((e as CustomEvent).detail));
    // The scheduled renewal (the vendor retires the old token) loads the new one in a hidden frame...
    await vi.advanceTimersByTimeAsync(540_000);
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(frames(m)[1]!.getAttribute('src')).toContain(second.token);
    // ...while the visible frame, still on the old token, finds it refused: the renewal is on its way.
    send(m.win, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(2);
    expect(errors).toEqual([]);
    const [nextWin] = spyWindows(m).values();
    send(nextWin, vendorLoaded);
    await m.el.updateComplete;
    expect(frames(m)).toHaveLength(1);
    // The frame now running on the held token is heard as before.
    send(nextWin, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(3);
  });

  it('never lets a slow new frame replace the working one: after the timeout it is dropped, an error is reported and the rotation retried', async () => {
    const { m, fetch } = await exploDashboard();
    fetch.mockImplementation(async () => json(tokenBody(600)));
    const errors: unknown[] = [];
    m.el.addEventListener('dashboard-error', (e) => errors.push((e as CustomEvent).detail));
    send(m.win, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(frames(m)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(FRAME_SWAP_TIMEOUT_MS);
    await m.el.updateComplete;
    expect(frames(m)).toEqual([m.frame]);
    expect(m.frame.className).toBe('');
    expect(errors).toEqual([{ code: 'timeout', message: 'The dashboard could not be loaded.', retryable: true }]);
    expect(m.el.state).toBe('refreshing');
    await vi.advanceTimersByTimeAsync(60_000);
    await m.el.updateComplete;
    expect(fetch.mock.calls.length).toBeGreaterThanOrEqual(3);
    expect(frames(m)).toHaveLength(2);
  });

  it('hands focus that was in the swapped-out frame to the wrapper, not to <body>', async () => {
    const { m } = await exploDashboard();
    m.frame.focus();
    send(m.win, { event: 'customerJwtExpired' });
    await settle(m.el);
    const [nextWin] = spyWindows(m).values();
    send(nextWin, vendorLoaded);
    await m.el.updateComplete;
    expect(m.frame.isConnected).toBe(false);
    expect(m.el.shadowRoot!.activeElement).toBe(m.el.shadowRoot!.querySelector('[part="base"]'));
  });

  it('ignores a forged message from another origin or window', async () => {
    const { m, fetch } = await exploDashboard();
    send(m.win, { event: 'customerJwtExpired' }, 'https://evil.example');
    send(window, { event: 'customerJwtExpired' });
    await settle(m.el);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('reports a protocol it does not know as an invalid attribute', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount({ protocol: 'graphql' });
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(m.events[0]!.detail).toMatchObject({ code: 'invalid_attribute', message: expect.stringContaining('unknown protocol graphql') });
  });
});
