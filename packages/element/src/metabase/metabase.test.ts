import { describe, expect, it, vi } from 'vitest';
import { json, mount, ORIGIN, resolved, settle, stubFetch, tokenBody, useElementTestEnvironment, type Mounted } from '../../test/support/fixtures.js';
import '../metabase.js';
import { FRAME_SWAP_TIMEOUT_MS } from '../frame/frame-controller.js';
import { HEIGHT_MEMORY_KEY } from '../frame/height-memory.js';
import { METABASE_MAX_LOCATION_LENGTH } from './metabase-protocol.js';

useElementTestEnvironment();

const TEMPLATE = `${ORIGIN}/embed/dashboard/{token}`;
const attributes = (extra: Record<string, string> = {}) => ({ protocol: 'metabase', dashboard: '7', 'src-template': TEMPLATE, ...extra });
const fit = (height: unknown) => ({ metabase: { type: 'frame', frame: { mode: 'fit', height } } });
const normal = (height: unknown) => ({ metabase: { type: 'frame', frame: { mode: 'normal', height } } });
const frames = (m: Mounted) => [...m.el.shadowRoot!.querySelectorAll('iframe')];
const send = (source: unknown, data: unknown, origin = ORIGIN) => window.dispatchEvent(new MessageEvent('message', { data, origin, source: source as Window }));
const bodyOf = (fetch: ReturnType<typeof stubFetch>, call: number) => JSON.parse(fetch.mock.calls[call]![1]!.body as string) as Record<string, unknown>;
const errorsOf = (m: Mounted) =>
  m.events.filter((e) => e.type === 'dashboard-error').map((e) => e.detail as { code: string; message: string; retryable: boolean });
const heightOf = (frame: Element) => (frame as HTMLElement).style.getPropertyValue('--embedded-dashboard-height');

/** The hidden second frame, with a spy window (happy-dom loads no pages). */
function hidden(m: Mounted) {
  const next = frames(m).find((f) => f !== m.frame)!;
  const win = { postMessage: vi.fn() };
  Object.defineProperty(next, 'contentWindow', { value: win, configurable: true });
  return { next, win };
}

/** A mounted Metabase element with its first token and its frame reporting. */
async function shown(extra: Record<string, string> = {}) {
  const first = tokenBody(600);
  const second = tokenBody(600);
  const fetch = stubFetch(json(first), json(second));
  const m = await mount(attributes(extra));
  const locations: CustomEvent[] = [];
  m.el.addEventListener('dashboard-location', (e) => locations.push(e));
  await settle(m.el);
  m.fromFrame(fit(640));
  await settle(m.el);
  return { m, fetch, first, second, locations };
}

describe('<embedded-dashboard protocol="metabase">', () => {
  it('names its dashboard in the token request and loads /embed/dashboard/<token>, posting nothing to the frame', async () => {
    const { m, fetch, first } = await shown();
    expect(bodyOf(fetch, 0)).toEqual({ dashboard: '7' });
    expect(m.frame.getAttribute('src')).toBe(`${ORIGIN}/embed/dashboard/${first.token}`);
    expect(m.win.postMessage).not.toHaveBeenCalled();
    expect(m.el.state).toBe('ready');
    expect(m.events.filter((e) => e.type === 'dashboard-load').map((e) => e.detail)).toEqual([{ dashboardId: '7', height: 640, loadTime: 0 }]);
  });

  it('puts the hash options from attributes, locale-code and refresh-minutes (in seconds) after the token, and editable parameters in the query', async () => {
    stubFetch(json(tokenBody(600)));
    const m = await mount(
      attributes({
        bordered: 'false',
        titled: 'true',
        theme: 'night',
        downloads: 'false',
        'hide-parameters': 'region,plan',
        'locale-code': 'de-de',
        'refresh-minutes': '5',
        variables: '{"region":["EU","US"],"plan":"pro","year":2026,"since":null}',
      }),
    );
    await settle(m.el);
    const src = new URL(m.frame.getAttribute('src')!);
    expect(src.search).toBe('?region=EU&region=US&plan=pro&year=2026&since=');
    expect(src.hash).toBe('#bordered=false&titled=true&theme=night&refresh=300&hide_parameters=region,plan&downloads=false&locale=de_DE');
  });

  it('takes the dashboard by its entity id too', async () => {
    const first = tokenBody(600);
    const fetch = stubFetch(json(first));
    const m = await mount(attributes({ dashboard: 'A1b2C3d4E5f6G7h8I9j0K' }));
    await settle(m.el);
    expect(bodyOf(fetch, 0)).toEqual({ dashboard: 'A1b2C3d4E5f6G7h8I9j0K' });
    expect(m.el.state).toBe('loading');
  });

  it.each([
    ['no {token} in the template', { 'src-template': `${ORIGIN}/embed/dashboard/x` }, /src-template must hold \/embed\/dashboard\/\{token\}/],
    ['a dashboard that is no id', { dashboard: '../7' }, /dashboard or chart must be a Metabase id/],
    ['a dashboard id of markup', { dashboard: '<img src=x onerror=alert(1)>' }, /dashboard or chart must be a Metabase id/],
    ['bordered not a boolean', { bordered: 'yes' }, /bordered must be true or false/],
    ['titled smuggling a hash', { titled: 'true&theme=night' }, /titled must be true or false/],
    ['downloads empty', { downloads: '' }, /downloads must be true, false or a list/],
    ['an unknown theme', { theme: 'dark' }, /theme must be one of light, night, transparent/],
    ['a theme smuggling an option', { theme: 'night&hide_parameters=customer_id' }, /theme must be one of/],
    ['background not a boolean', { background: 'no' }, /background must be true or false/],
    ['a font smuggling a hash', { font: 'Lato#theme=night' }, /font must be a font name/],
    ['downloads of an unknown kind', { downloads: 'pdf,csv' }, /downloads must be true, false or a list of pdf, results/],
    ['a locale Metabase cannot name', { 'locale-code': 'de-DE-u-co-phonebk' }, /locale-code must, for Metabase, be a language tag/],
    ['hidden parameters with a space', { 'hide-parameters': 'region, plan' }, /hide-parameters must be parameter slugs/],
    ['hidden parameters smuggling a hash', { 'hide-parameters': 'region#bordered=false' }, /hide-parameters must be parameter slugs/],
    ['a hidden parameter in capitals', { 'hide-parameters': 'Region' }, /hide-parameters must be parameter slugs/],
    ['a variable that is no slug', { variables: '{"a b":"x"}' }, /variables must map parameter slugs/],
    ['a variable smuggling a query', { variables: '{"region&customer_id":"2"}' }, /variables must map parameter slugs/],
    ['an object variable', { variables: '{"region":{"id":1}}' }, /variables must map parameter slugs/],
    ['a nested list variable', { variables: '{"region":[["EU"]]}' }, /variables must map parameter slugs/],
    ['a variable in capitals (no Metabase slug)', { variables: '{"Region":"EU"}' }, /variables must map parameter slugs/],
    ['a prototype key', { variables: '{"__proto__":{"x":1}}' }, /__proto__/],
    ['variables that are no JSON', { variables: '{region' }, /variables must be JSON/],
    ['a URL over Metabase’s limit', { variables: JSON.stringify({ region: Array.from({ length: 3 }, () => 'x'.repeat(1_999)) }) }, /at most 8192 characters/],
  ])('refuses %s with invalid_attribute and asks for no token', async (_name, extra, message) => {
    const fetch = stubFetch(json(tokenBody(600)));
    const m = await mount(attributes(extra));
    await settle(m.el);
    expect(m.el.state).toBe('error');
    expect(errorsOf(m)).toEqual([{ code: 'invalid_attribute', message: expect.stringMatching(message), retryable: false }]);
    expect(fetch).not.toHaveBeenCalled();
    expect(frames(m).every((f) => !f.getAttribute('src'))).toBe(true);
  });

  it('follows the height of mode "fit" both ways, within the bounds, and remembers it for a repeat view', async () => {
    const { m } = await shown();
    expect(heightOf(m.frame)).toBe('640px');
    m.fromFrame(fit(1200.2));
    await settle(m.el);
    expect(heightOf(m.frame)).toBe('1201px');
    m.fromFrame(fit(300));
    await settle(m.el);
    expect(heightOf(m.frame)).toBe('300px');
    // Out of bounds, not a number: ignored.
    for (const height of [0, -5, 1e9, Number.NaN, '800', null, { valueOf: () => 900 }]) m.fromFrame(fit(height));
    await settle(m.el);
    expect(heightOf(m.frame)).toBe('300px');
    expect(m.events.filter((e) => e.type === 'dashboard-resize').map((e) => e.detail.height)).toEqual([640, 1201, 300]);
    expect(JSON.parse(sessionStorage.getItem(HEIGHT_MEMORY_KEY)!)).toEqual([['7', 300]]);
    // A repeat view in this page session reserves that height before the frame reports (no layout shift).
    stubFetch(json(tokenBody(600)));
    const again = await mount(attributes());
    await settle(again.el);
    expect(heightOf(frames(again)[0]!)).toBe('300px');
  });

  it('follows mode "normal" too (the body’s scroll height), and takes no fit report without a height', async () => {
    stubFetch(json(tokenBody(600)));
    const m = await mount(attributes());
    await settle(m.el);
    m.fromFrame({ metabase: { type: 'frame', frame: { mode: 'fit' } } });
    await settle(m.el);
    expect(m.el.state).toBe('loading');
    m.fromFrame(normal(812));
    await settle(m.el);
    expect(m.el.state).toBe('ready');
    expect(heightOf(m.frame)).toBe('812px');
    m.fromFrame(fit(500));
    m.fromFrame(normal(0));
    await settle(m.el);
    expect(heightOf(m.frame)).toBe('500px');
    expect(m.events.filter((e) => e.type === 'dashboard-resize').map((e) => e.detail.height)).toEqual([812, 500]);
    expect(m.events.filter((e) => e.type === 'dashboard-load')).toHaveLength(1);
  });

  it('hears only its own frame’s window at the exact origin of its URL (Metabase posts to "*")', async () => {
    stubFetch(json(tokenBody(600)));
    const m = await mount(attributes());
    await settle(m.el);
    m.fromFrame(fit(900), { origin: 'https://evil.example' });
    m.fromFrame(fit(900), { origin: `${ORIGIN}:443x` });
    m.fromFrame(fit(900), { origin: 'http://dash.example.com' });
    m.fromFrame(fit(900), { source: window });
    m.fromFrame(fit(900), { source: null });
    m.fromFrame(fit(900), { source: { postMessage: vi.fn() } });
    await settle(m.el);
    expect(m.el.state).toBe('loading');
    expect(heightOf(m.frame)).toBe('');
    expect(m.events.filter((e) => e.type === 'dashboard-load' || e.type === 'dashboard-resize')).toEqual([]);
  });

  it('ignores malformed, huge and deep messages from its own frame, never throwing', async () => {
    stubFetch(json(tokenBody(600)));
    const m = await mount(attributes());
    const errors: unknown[] = [];
    const onError = (e: ErrorEvent) => errors.push(e.error);
    window.addEventListener('error', onError);
    await settle(m.el);
    let deep: unknown = fit(700);
    for (let i = 0; i < 10_000; i++) deep = { metabase: deep };
    for (const data of [
      null,
      undefined,
      42,
      'metabase',
      [],
      { metabase: null },
      { metabase: 'frame' },
      { metabase: { type: 'frame' } },
      { metabase: { type: 'frame', frame: null } },
      { metabase: { type: 'frame', frame: 'fit' } },
      { metabase: { type: 'frame', frame: { mode: 'stretch', height: 700 } } },
      { metabase: { type: 'frame', frame: { mode: 'fit' } } },
      { metabase: { type: 'Frame', frame: { mode: 'fit', height: 700 } } },
      { event: 'dashboardLoaded', detail: { dashboardId: '7', dashboardHeight: 700, loadTime: 1 } },
      { event: 'dashboardReadyToLoad', detail: { dashboardId: '7' } },
      { event: 'my-event', detail: {} },
      { metabase: { type: 'location', location: 'x'.repeat(1_000_000) } },
      { metabase: { type: 'frame', frame: { mode: 'fit', height: 700, extra: 'x'.repeat(1_000_000) } }, junk: Array.from({ length: 100_000 }, () => 0) },
      deep,
    ])
      m.fromFrame(data);
    await settle(m.el);
    window.removeEventListener('error', onError);
    expect(errors).toEqual([]);
    // The one well-formed report among them (its extra fields ignored) is the only one heard.
    expect(m.events.filter((e) => e.type === 'dashboard-load').map((e) => e.detail.height)).toEqual([700]);
    expect(m.events.filter((e) => e.type === 'dashboard-custom-event')).toEqual([]);
  });

  it('says where the viewer took the frame as dashboard-location, without the token, and only from its visible frame', async () => {
    const { m, first, locations } = await shown();
    const location = {
      href: `${ORIGIN}/embed/dashboard/${first.token}?region=EU&region=US&plan=pro#bordered=false`,
      pathname: `/embed/dashboard/${first.token}`,
      search: '?region=EU&region=US&plan=pro&__proto__=x&a%20b=y',
      hash: '#bordered=false',
    };
    m.fromFrame({ metabase: { type: 'location', location } });
    m.fromFrame({ metabase: { type: 'location', location } }, { origin: 'https://evil.example' });
    m.fromFrame({ metabase: { type: 'location', location } }, { source: window });
    expect(locations.map((e) => e.detail)).toEqual([{ search: location.search, hash: '#bordered=false' }]);
    expect(JSON.stringify(locations[0]!.detail)).not.toContain(first.token);
    expect(locations[0]!.bubbles && locations[0]!.composed).toBe(true);
    // Over the limit, or not strings: none.
    for (const bad of [
      { search: `?q=${'x'.repeat(METABASE_MAX_LOCATION_LENGTH)}`, hash: '' },
      { search: 42, hash: '' },
      { hash: '#x' },
      null,
      'https://evil.example',
    ])
      m.fromFrame({ metabase: { type: 'location', location: bad } });
    expect(locations).toHaveLength(1);
  });

  it('renews before exp in a hidden frame that replaces the visible one when it reports: never a blank frame', async () => {
    const { m, fetch, first, second } = await shown({ 'refresh-margin': '60' });
    await vi.advanceTimersByTimeAsync(540_000);
    await settle(m.el);
    expect(bodyOf(fetch, 1)).toEqual({ token: first.token, dashboard: '7' });
    expect(String(fetch.mock.calls[1]![0])).toBe(`${resolved(m.el)}/rotate`);
    const { next, win } = hidden(m);
    expect(next.getAttribute('src')).toBe(`${ORIGIN}/embed/dashboard/${second.token}`);
    expect(next.className).toBe('pending next');
    // The old frame stays visible and sized; the new one's location, a forged report, change nothing.
    expect(m.frame.className).toBe('');
    send(win, { metabase: { type: 'location', location: { search: '?x=1', hash: '' } } });
    send(win, fit(640), 'https://evil.example');
    // Its dashboard still loading (another height): it stays hidden.
    send(win, normal(120));
    await settle(m.el);
    expect(frames(m)).toHaveLength(2);
    expect(next.className).toBe('pending next');
    // Laid out as the visible one: swapped in, in the same render the old one goes.
    send(win, fit(640.4));
    await settle(m.el);
    expect(frames(m)).toEqual([next]);
    expect(next.className).toBe('');
    expect(heightOf(next)).toBe('641px');
    expect(m.el.state).toBe('ready');
    // The dropped frame is no longer heard; the new one is followed.
    m.fromFrame(fit(100));
    send(win, fit(900));
    await settle(m.el);
    expect(heightOf(next)).toBe('900px');
    expect(win.postMessage).not.toHaveBeenCalled();
  });

  it('swaps in a new frame whose dashboard changed height when the swap would time out, at its last height', async () => {
    const { m } = await shown({ 'refresh-margin': '60' });
    await vi.advanceTimersByTimeAsync(540_000);
    await settle(m.el);
    const { next, win } = hidden(m);
    send(win, normal(100));
    send(win, fit(720));
    await vi.advanceTimersByTimeAsync(FRAME_SWAP_TIMEOUT_MS - 1);
    expect(frames(m)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    await settle(m.el);
    expect(frames(m)).toEqual([next]);
    expect(heightOf(next)).toBe('720px');
    expect(m.el.state).toBe('ready');
    expect(errorsOf(m)).toEqual([]);
  });

  it('keeps the working frame when the new one never reports: dropped after the timeout, the renewal retried', async () => {
    const { m, fetch } = await shown({ 'refresh-margin': '60' });
    fetch.mockImplementation(async () => json(tokenBody(600)));
    await vi.advanceTimersByTimeAsync(540_000);
    await settle(m.el);
    expect(frames(m)).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(FRAME_SWAP_TIMEOUT_MS);
    await settle(m.el);
    expect(frames(m)).toEqual([m.frame]);
    expect(errorsOf(m).map((e) => e.code)).toEqual(['timeout']);
  });

  it('loads new variables in a hidden frame too (Metabase takes parameters in the URL only)', async () => {
    const { m, first } = await shown({ variables: '{"region":"EU"}' });
    m.el.variables = { region: ['US', 'APAC'] };
    await settle(m.el);
    const { next, win } = hidden(m);
    expect(next.getAttribute('src')).toBe(`${ORIGIN}/embed/dashboard/${first.token}?region=US&region=APAC`);
    send(win, fit(640));
    await settle(m.el);
    expect(frames(m)).toEqual([next]);
    // Set to the same again: nothing loads.
    m.el.variables = { region: ['US', 'APAC'] };
    await settle(m.el);
    expect(frames(m)).toEqual([next]);
  });

  it('starts over for a new dashboard: a token for it, never the old one presented', async () => {
    const { m, fetch } = await shown();
    m.el.setAttribute('dashboard', '8');
    await settle(m.el);
    await settle(m.el);
    expect(bodyOf(fetch, 1)).toEqual({ dashboard: '8' });
  });

  it('shows the error state when the BFF refuses the token', async () => {
    stubFetch(json({ error: { code: 'unauthenticated', message: 'sign in', retryable: false } }, 401));
    const m = await mount(attributes());
    await settle(m.el);
    expect(m.el.state).toBe('unauthenticated');
    expect(frames(m).every((f) => !f.getAttribute('src'))).toBe(true);
  });
});
