import { describe, expect, it, vi } from 'vitest';
import { json, mount, ORIGIN, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';

useElementTestEnvironment();

const ready = { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales' } };
const loaded = { event: 'dashboardLoaded', detail: { dashboardId: 'sales', dashboardHeight: 640, loadTime: 5 } };
const changed = (varName: unknown, newValue: unknown) => ({ event: 'variableUpdated', detail: { varName, newValue } });
const frames = (m: Mounted) => [...m.el.shadowRoot!.querySelectorAll('iframe')];
const send = (source: unknown, data: unknown, origin = ORIGIN) => window.dispatchEvent(new MessageEvent('message', { data, origin, source: source as Window }));
const posted = (win: Mounted['win'], event: string) => win.postMessage.mock.calls.filter(([msg]) => msg.event === event).map(([msg]) => msg.detail);

async function loadedDashboard(attributes: Record<string, string> = {}) {
  const body = tokenBody(600);
  stubFetch(json(body));
  const m = await mount(attributes);
  await settle(m.el);
  m.fromFrame(ready);
  m.fromFrame(loaded);
  await m.el.updateComplete;
  return { ...m, body };
}

/** A spy window for the hidden second frame (happy-dom loads no pages). */
function hiddenWindow(m: Mounted) {
  const next = frames(m).find((f) => f !== m.frame)!;
  const win = { postMessage: vi.fn() };
  Object.defineProperty(next, 'contentWindow', { value: win, configurable: true });
  return { next, win };
}

describe('<embedded-dashboard> variables of every shape', () => {
  it('sends arrays and objects to the running frame as set, in the message protocol', async () => {
    const m = await loadedDashboard({ variables: '{"regions":["EU","US"],"var_5":{"from":"2026-01-01"}}' });
    expect(posted(m.win, 'updateVariables')).toEqual([{ variables: { regions: ['EU', 'US'], var_5: { from: '2026-01-01' } } }]);
    m.el.variables = { regions: ['APAC'] };
    await m.el.updateComplete;
    expect(posted(m.win, 'updateVariables').at(-1)).toEqual({ variables: { regions: ['APAC'] } });
  });

  it('puts an array in the explo URL as a JSON value and sends it in updateExploDashboardVariables', async () => {
    const first = tokenBody(600);
    stubFetch(json(first));
    const m = await mount({ protocol: 'explo', 'src-template': `${ORIGIN}/iframe/{dashboard}/{token}`, variables: '{"regions":["EU","US"]}' });
    await settle(m.el);
    expect(new URL(m.frame.src).searchParams.get('regions')).toBe('["EU","US"]');
    send(m.win, loaded);
    expect(posted(m.win, 'updateExploDashboardVariables')).toEqual([{ variables: [{ varName: 'regions', value: ['EU', 'US'] }] }]);
  });

  it('reports an array from the dashboard in dashboard-variable-change and currentVariables, never dropped', async () => {
    const m = await loadedDashboard({ variables: '{"regions":["EU"],"year":2026}' });
    const before = m.el.currentVariables;
    expect(before).toEqual({ regions: ['EU'], year: 2026 });
    m.fromFrame(changed('regions', ['EU', 'US']));
    expect(m.events.at(-1)!.type).toBe('dashboard-variable-change');
    expect(m.events.at(-1)!.detail).toEqual({ name: 'regions', value: ['EU', 'US'] });
    const after = m.el.currentVariables;
    expect(after).toEqual({ regions: ['EU', 'US'], year: 2026 });
    expect(after).not.toBe(before);
    expect(before).toEqual({ regions: ['EU'], year: 2026 });
  });

  it('currentVariables is read-only and never a live reference', async () => {
    const set = { regions: ['EU'] };
    const m = await loadedDashboard();
    m.el.variables = set;
    await m.el.updateComplete;
    set.regions.push('US');
    const current = m.el.currentVariables;
    expect(current).toEqual({ regions: ['EU'] });
    expect(() => (current.regions as string[]).push('X')).toThrow(TypeError);
    expect(() => Object.assign(m.el, { currentVariables: {} })).toThrow(TypeError);
    expect(m.el.currentVariables).toEqual({ regions: ['EU'] });
  });

  it.each([
    ['NaN', changed('regions', Number.NaN)],
    ['too deep', changed('regions', [[[[['x']]]]])],
    [
      'too long an array',
      changed(
        'regions',
        Array.from({ length: 501 }, () => 'EU'),
      ),
    ],
    ['too long a string', changed('regions', 'x'.repeat(2001))],
    ['a __proto__ key', changed('regions', JSON.parse('{"__proto__":{"polluted":true}}'))],
    ['a __proto__ name', changed('__proto__', 'EU')],
    ['a constructor name', changed('constructor', 'EU')],
    ['no name', changed(undefined, 'EU')],
  ])('ignores a variable update over the limits or hostile (%s): no event, nothing changed', async (_, message) => {
    const m = await loadedDashboard({ variables: '{"regions":["EU"]}' });
    const events = m.events.length;
    m.fromFrame(message);
    expect(m.events.length).toBe(events);
    expect(m.el.currentVariables).toEqual({ regions: ['EU'] });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('ignores an update that would put all the variables over the size limit (not half applied)', async () => {
    const big = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`v${i}`, 'x'.repeat(2000)]));
    const m = await loadedDashboard({ variables: JSON.stringify(big) });
    const events = m.events.length;
    m.fromFrame(changed('v3', 'x'.repeat(2000)));
    expect(m.events.length).toBe(events);
    expect(Object.keys(m.el.currentVariables)).toEqual(['v0', 'v1', 'v2']);
  });

  it('ignores variable updates from another window or origin', async () => {
    const m = await loadedDashboard();
    m.fromFrame(changed('regions', ['EU']), { origin: 'https://evil.example' });
    m.fromFrame(changed('regions', ['EU']), { source: window });
    expect(m.events.some((e) => e.type === 'dashboard-variable-change')).toBe(false);
    expect(m.el.currentVariables).toEqual({});
  });

  it.each([
    ['{"a":[[[[["x"]]]]]}', 'maxDepth'],
    [`{"a":[${Array.from({ length: 501 }, () => 0).join(',')}]}`, 'maxArrayLength'],
    [`{"a":"${'x'.repeat(2001)}"}`, 'maxStringLength'],
    [JSON.stringify(Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`v${i}`, 'x'.repeat(2000)]))), 'maxEncodedLength'],
    [JSON.stringify(Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`v${i}`, 1]))), 'maxVariables'],
    [`{"${'n'.repeat(201)}":1}`, 'maxNameLength'],
    ['{"":1}', 'maxNameLength'],
    ['{"__proto__":{"admin":true}}', '__proto__ is not allowed'],
    ['{"a":{"constructor":{}}}', 'constructor, which is not allowed'],
    ['{"a":NaN}', 'variables must be JSON'],
  ])('refuses variables %# with invalid_attribute naming the limit', async (variables, message) => {
    const fetch = stubFetch(json(tokenBody()));
    const m = await mount({ variables });
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(m.events[0]!.detail).toEqual({ code: 'invalid_attribute', message: expect.stringContaining(message), retryable: false });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('refuses a property value that is not JSON (NaN, Infinity, a Date), and stays refused on later renders', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount();
    for (const value of [{ a: Number.NaN }, { a: Number.NEGATIVE_INFINITY }, { a: new Date(0) }]) {
      m.el.variables = value as never;
      await settle(m.el);
      expect(m.el.problem).toMatch(/not a JSON value/);
      m.el.label = `x${String(value.a)}`;
      await settle(m.el);
      expect(m.el.state).toBe('error');
    }
  });
});

describe('<embedded-dashboard> locale-code and refresh-minutes', () => {
  it('puts them in the frame URL in the message protocol, the attribute replacing the template’s', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount({ 'src-template': `${ORIGIN}/iframe/{dashboard}?locale_code=fr&refresh-minutes=30`, 'locale-code': 'de-de' });
    await settle(m.el);
    expect(Object.fromEntries(new URL(m.frame.src).searchParams)).toEqual({ locale_code: 'de-DE', 'refresh-minutes': '30' });
    expect(m.el.localeCode).toBe('de-de');
  });

  it('keeps options typed into src-template when the attributes are absent', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount({ 'src-template': `${ORIGIN}/iframe/{dashboard}?locale_code=fr&refresh-minutes=30` });
    await settle(m.el);
    expect(m.frame.src).toBe(`${ORIGIN}/iframe/sales?locale_code=fr&refresh-minutes=30`);
  });

  it('puts them in the explo-jwt URL too, as properties', async () => {
    const first = tokenBody();
    stubFetch(json(first));
    const m = await mount({ protocol: 'explo-jwt', 'src-template': `${ORIGIN}/iframe/{token}/{environment}`, environment: 'production' });
    m.el.localeCode = 'ja';
    m.el.refreshMinutes = 15;
    await settle(m.el);
    await settle(m.el);
    expect(m.el.shadowRoot!.querySelector('iframe')!.src).toBe(`${ORIGIN}/iframe/${first.token}/production?locale_code=ja&refresh-minutes=15`);
  });

  it.each([
    [{ 'locale-code': 'not a locale' }, 'locale-code must be a BCP 47 language tag'],
    [{ 'locale-code': 'x'.repeat(100) }, 'locale-code must be a BCP 47 language tag'],
    [{ 'refresh-minutes': '0' }, 'refresh-minutes must be whole minutes, 1 to 1440'],
    [{ 'refresh-minutes': '1.5' }, 'refresh-minutes'],
    [{ 'refresh-minutes': '1441' }, 'refresh-minutes'],
    [{ 'refresh-minutes': 'soon' }, 'refresh-minutes'],
    [{ 'refresh-minutes': '-5' }, 'refresh-minutes'],
  ])('refuses %j with invalid_attribute', async (attributes, message) => {
    const fetch = stubFetch(json(tokenBody()));
    const m = await mount(attributes);
    await settle(m.el);
    expect(m.events[0]!.detail).toEqual({ code: 'invalid_attribute', message: expect.stringContaining(message), retryable: false });
    expect(fetch).not.toHaveBeenCalled();
  });

  it('a change at runtime loads the new URL in a hidden second frame, with the token and the current variables, and swaps only once it has loaded', async () => {
    const m = await loadedDashboard({ variables: '{"regions":["EU"]}' });
    m.fromFrame(changed('regions', ['EU', 'US']));
    m.el.setAttribute('locale-code', 'de-DE');
    await m.el.updateComplete;
    expect(frames(m)).toHaveLength(2);
    expect(frames(m)[0]).toBe(m.frame);
    expect(m.frame.src).toBe(`${ORIGIN}/iframe/sales?env=Customer`);
    const { next, win } = hiddenWindow(m);
    expect(next.src).toBe(`${ORIGIN}/iframe/sales?env=Customer&locale_code=de-DE`);
    expect(next.className).toBe('pending next');
    send(win, ready);
    expect(posted(win, 'updateToken')).toEqual([{ token: m.body.token }]);
    // From another origin the hidden frame's load is no load.
    send(win, loaded, 'https://evil.example');
    await m.el.updateComplete;
    expect(frames(m)).toHaveLength(2);
    send(win, loaded);
    await m.el.updateComplete;
    expect(frames(m)).toEqual([next]);
    expect(m.el.state).toBe('ready');
    expect(posted(win, 'updateVariables')).toEqual([{ variables: { regions: ['EU', 'US'] } }]);
    expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(2);
  });

  it('a change before the first load just points the frame at the new URL', async () => {
    stubFetch(json(tokenBody()));
    const m = await mount();
    await settle(m.el);
    m.el.refreshMinutes = 5;
    await m.el.updateComplete;
    expect(frames(m)).toEqual([m.frame]);
    expect(m.frame.src).toBe(`${ORIGIN}/iframe/sales?env=Customer&refresh-minutes=5`);
  });
});
