// @vitest-environment happy-dom
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { VARIABLE_LIMITS, variablesProblem, type DashboardMessage } from '@embedded-dashboard/protocol';
import { buildDashboardData, dashboardLayout, singleChart } from '../sample-data/build-data.js';
import type { DashboardGroupView } from '../options.js';
import { runDashboardPage } from './frame-script.js';
import type { PageConfig, PageEnvironment, PageLibrary } from './page-inputs.js';
import { matchesOrigin, resolveParentOrigin } from './origin-match.js';
import { pageParseHostMessage } from './parse-host-message.js';
import { renderDashboard } from './render.js';
import { fromVendorMessage, toVendorMessage } from './vendor-messages.js';

const HOST = 'http://localhost:5174';
const acme: DashboardGroupView = { name: 'Acme Corp', providedId: 'acme', environment: 'Customer', properties: { region: 'EU', seats: 42, rows: 3 } };
const lib: PageLibrary = {
  parseHostMessage: pageParseHostMessage,
  variablesProblem,
  toVendorMessage,
  fromVendorMessage,
  matchesOrigin,
  resolveParentOrigin,
  renderDashboard,
};
const config: PageConfig = {
  dashboardId: 'sales-overview',
  dataUrl: '../iframe-data/sales-overview',
  embedOrigins: ['http://localhost:*'],
  dataRefreshMs: 1000,
  minHeight: 1,
  maxHeight: 20_000,
  defaultDetailRows: 8,
  maxDetailRows: 50,
  variableLimits: VARIABLE_LIMITS,
  layout: dashboardLayout('sales-overview')!,
};

/** The dashboard's own events (analytics, the JS Event Buttons of the sample dashboards), kept apart from the lifecycle messages. */
const OWN_EVENTS = ['analyticsEventFired', 'exportRequested', 'escalationRequested'];

interface Harness {
  posted: Array<{ message: DashboardMessage; targetOrigin: string }>;
  own: Array<{ message: { event: string; detail: unknown }; targetOrigin: string }>;
  parent: { postMessage(message: unknown, targetOrigin: string): void };
  requests: string[];
  /** Token -> group; a token missing here answers 401, `forbidden` 403. */
  groups: Map<string, DashboardGroupView | 'network-error' | 'forbidden'>;
  /** The `Embed-Origin` header of each data request (null: none). */
  embedOrigins: (string | null)[];
  /** Added to every data answer (an embed token's time left). */
  tokenExpiresInMs?: number;
  height: number;
  resize(): void;
  tick(): void;
  send(data: unknown, origin?: string, source?: unknown): void;
  events(): string[];
  hashForgotten?: boolean;
  /** One-shot timers the page set (`after`), to run by hand. */
  timers: Array<{ ms: number; done: () => void }>;
}

function boot(overrides: Partial<PageEnvironment> = {}, search = '', pageConfig: Partial<PageConfig> = {}, hash = '', prepare?: (h: Harness) => void): Harness {
  document.body.innerHTML = '<main id="app"><div id="dashboard"></div><span id="status"></span></main>';
  document.body.dataset.state = 'loading';
  let onResize = () => {};
  let onTick = () => {};
  const harness: Harness = {
    posted: [],
    own: [],
    parent: {
      postMessage: (message, targetOrigin) => {
        const { event } = message as { event: string };
        if (OWN_EVENTS.includes(event)) harness.own.push({ message: message as { event: string; detail: unknown }, targetOrigin });
        else harness.posted.push({ message: message as DashboardMessage, targetOrigin });
      },
    },
    requests: [],
    embedOrigins: [],
    groups: new Map([['tok-1', acme]]),
    height: 500,
    resize: () => onResize(),
    tick: () => onTick(),
    send: (data, origin = HOST, source = harness.parent) => {
      // As postMessage delivers it: a structured clone (own keys such as "__proto__" survive it).
      window.dispatchEvent(new MessageEvent('message', { data: structuredClone(data), origin, source: source as never }));
    },
    events: () => harness.posted.map((p) => p.message.event),
    timers: [],
  };
  const env: PageEnvironment = {
    window: window,
    parent: harness.parent,
    originClues: { ancestorOrigin: HOST, queryOrigin: null, referrer: '' },
    search,
    hash,
    forgetHash: () => {
      harness.hashForgotten = true;
    },
    fetch: async (url, init) => {
      const headers = new Headers(init.headers);
      const token = headers.get('Authorization')?.replace('Bearer ', '') ?? '';
      harness.requests.push(token);
      harness.embedOrigins.push(headers.get('Embed-Origin'));
      const group = harness.groups.get(token);
      if (group === 'network-error') throw new TypeError('network down');
      if (group === 'forbidden') return new Response('{}', { status: 403 });
      if (!group) return new Response('{}', { status: 401 });
      const extra = harness.tokenExpiresInMs === undefined ? {} : { tokenExpiresInMs: harness.tokenExpiresInMs };
      return new Response(JSON.stringify({ ...buildDashboardData('sales-overview', group), ...extra }), { status: 200 });
    },
    now: () => 123.4,
    measureHeight: () => harness.height,
    observeResize: (_, callback) => {
      onResize = callback;
    },
    every: (ms, tick) => {
      expect(ms).toBe(config.dataRefreshMs);
      onTick = tick;
    },
    after: (ms, done) => {
      harness.timers.push({ ms, done });
    },
    ...overrides,
  };
  prepare?.(harness);
  runDashboardPage({ ...config, ...pageConfig }, env, lib);
  return harness;
}

const state = () => document.body.dataset.state;
const groupName = () => document.querySelector('[data-testid="group-name"]')?.textContent;
const whenState = (expected: string) => vi.waitFor(() => expect(state()).toBe(expected));

async function loaded(h: Harness) {
  h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
  await whenState('ready');
  await vi.waitFor(() => expect(h.events()).toContain('dashboardLoaded'));
}

beforeEach(() => {
  document.body.innerHTML = '';
});

const analyticsDetail = (name: string) => ({ user_id: '', name, properties: { customer_name: 'Acme Corp' }, custom_properties: {} });

describe('dashboard page', () => {
  it("fires analyticsEventFired once loaded, and its JS Event Button posts the author's event with the group's name and provided id", async () => {
    const h = boot();
    await loaded(h);
    expect(h.own).toEqual([{ message: { event: 'analyticsEventFired', detail: analyticsDetail('Dashboard Page Viewed') }, targetOrigin: HOST }]);
    const button = document.querySelector<HTMLButtonElement>('[data-testid="js-event-button"]')!;
    expect(button.textContent).toBe('Request export');
    button.click();
    expect(h.own.at(-1)).toEqual({
      message: { event: 'exportRequested', detail: { customerName: 'Acme Corp', customerProvidedId: 'acme' } },
      targetOrigin: HOST,
    });
    // A new token's load is no new page view.
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateToken', detail: { token: 'tok-2' } });
    await vi.waitFor(() => expect(h.requests).toContain('tok-2'));
    expect(h.own.filter((p) => p.message.event === 'analyticsEventFired')).toHaveLength(1);
  });

  it('asks for a token, with the exact parent origin, as soon as it starts', () => {
    const h = boot();
    expect(h.posted).toEqual([
      { message: { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales-overview', dashboardHeight: 500 } }, targetOrigin: HOST },
    ]);
    expect(state()).toBe('loading');
  });

  it('draws the layout before the data, inert and busy, and says its height in dashboardReadyToLoad; the data replaces it', async () => {
    // A height the layout gives: 150 per chart and per KPI card drawn when measured (none: the minimum).
    const measured = () => 150 * document.querySelectorAll('#dashboard .chart, #dashboard .kpi').length;
    const h = boot({ measureHeight: measured });
    expect(h.posted[0]!.message).toEqual({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales-overview', dashboardHeight: 750 } });
    const root = document.getElementById('dashboard')!;
    expect(root.classList.contains('skeleton')).toBe(true);
    expect(root.hasAttribute('inert')).toBe(true);
    expect(root.getAttribute('aria-busy')).toBe('true');
    // The layout's labels, nobody's name or values.
    expect(groupName()).toBe('Loading…');
    expect(Array.from(root.querySelectorAll('.kpi-label'), (n) => n.textContent)).toEqual(['Revenue (12 months)', 'Orders', 'Average order']);
    expect(Array.from(root.querySelectorAll('.kpi-value'), (n) => n.textContent)).toEqual(['—', '—', '—']);
    await loaded(h);
    expect(groupName()).toBe('Acme Corp');
    expect(root.classList.contains('skeleton')).toBe(false);
    expect(root.hasAttribute('inert')).toBe(false);
    expect(root.hasAttribute('aria-busy')).toBe(false);
    expect(h.posted.find((p) => p.message.event === 'dashboardLoaded')!.message.detail).toMatchObject({ dashboardHeight: 750 });
  });

  it("says a change of its layout's height before the data (a frame given its width late), so the data brings no jump", async () => {
    const h = boot();
    // The viewport width the first height was measured at, for a test that sees the width change.
    expect(document.body.dataset.sizedWidth).toBe(String(window.innerWidth));
    h.height = 780;
    h.resize();
    h.resize();
    expect(h.posted.map((p) => p.message)).toEqual([
      { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales-overview', dashboardHeight: 500 } },
      { event: 'dashboardResized', detail: { dashboardHeight: 780 } },
    ]);
    await loaded(h);
    expect(h.posted.slice(2).map((p) => p.message)).toEqual([
      { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 780, loadTime: 123 } },
    ]);
  });

  it("a single chart's layout is that chart alone, and says that height", () => {
    const measured = () => 150 * document.querySelectorAll('#dashboard .chart, #dashboard .kpi').length;
    const h = boot({ measureHeight: measured }, '', { layout: singleChart(dashboardLayout('sales-overview')!, 'orders-by-month') });
    expect(h.posted[0]!.message).toEqual({ event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales-overview', dashboardHeight: 150 } });
    expect(Array.from(document.querySelectorAll('#dashboard .chart-title'), (n) => n.textContent)).toEqual(['Orders by month (orders)']);
  });

  it('a layout left without data (a refused token) is not busy any more', async () => {
    const h = boot();
    h.send({ event: 'updateToken', detail: { token: 'not-a-group' } });
    await whenState('expired');
    const root = document.getElementById('dashboard')!;
    expect(root.hasAttribute('aria-busy')).toBe(false);
    expect(groupName()).toBe('Loading…');
  });

  it('blocked, it draws no layout', () => {
    boot({ originClues: { ancestorOrigin: 'https://evil.example', queryOrigin: null, referrer: '' } });
    expect(state()).toBe('blocked');
    expect(document.querySelector('#dashboard .chart')).toBeNull();
  });

  it('stays silent and blocked when the embedding origin is not allowed', () => {
    const h = boot({ originClues: { ancestorOrigin: 'https://evil.com', queryOrigin: HOST, referrer: '' } });
    expect(h.posted).toEqual([]);
    expect(state()).toBe('blocked');
  });

  it('loads on the first updateToken and reports dashboardLoaded with its height', async () => {
    const h = boot();
    await loaded(h);
    expect(h.requests).toEqual(['tok-1']);
    expect(groupName()).toBe('Acme Corp');
    expect(document.body.dataset.tokenGeneration).toBe('1');
    expect(h.posted.at(-1)).toEqual({
      message: { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 500, loadTime: 123 } },
      targetOrigin: HOST,
    });
    expect(document.querySelector('[data-testid="environment"]')?.textContent).toBe('Customer');
    expect(document.body.innerHTML).not.toContain('tok-1');
  });

  it.each([
    ['another origin', 'https://evil.com', undefined],
    ['another window', HOST, {}],
  ])('ignores a token from %s', async (_, origin, source) => {
    const h = boot();
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } }, origin, source ?? h.parent);
    h.send({ event: 'updateToken', detail: { token: '' } });
    h.send('updateToken');
    await Promise.resolve();
    expect(h.requests).toEqual([]);
    expect(document.body.dataset.tokenGeneration).toBe('0');
  });

  it('takes a token from ?token= without waiting for a message', async () => {
    const h = boot({}, '?token=tok-1');
    await whenState('ready');
    expect(h.requests).toEqual(['tok-1']);
  });

  it('takes a first token from #token= without waiting for a message, and forgets the fragment', async () => {
    const h = boot({}, '?token=tok-2', {}, `#x=1&token=${encodeURIComponent('tok-1')}`);
    // Asked for a token as always (the host answers with the same one, which is ignored).
    expect(h.events()).toEqual(['dashboardReadyToLoad']);
    await whenState('ready');
    // A fragment token wins over the query's; the token is fetched once.
    expect(h.requests).toEqual(['tok-1']);
    expect(h.hashForgotten).toBe(true);
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
    await vi.waitFor(() => expect(h.events()).toContain('dashboardLoaded'));
    expect(h.requests).toEqual(['tok-1']);
    expect(document.body.dataset.tokenGeneration).toBe('1');
  });

  it.each([
    ['an empty #token=', '#token='],
    ['a fragment without token', '#token2=tok-1&tokens=tok-1'],
    ['a bare fragment', '#tok-1'],
  ])('waits for the host with %s (and forgets only a fragment that held token=)', async (_, hash) => {
    const h = boot({}, '', {}, hash);
    expect(state()).toBe('loading');
    expect(h.requests).toEqual([]);
    expect(h.hashForgotten).toBe(hash === '#token=' ? true : undefined);
    await loaded(h);
  });

  it.each([
    ['markup and a line separator', '"><script>alert(1)</script>\u2028'],
    ['a space', 'tok 1'],
    ['more than 1024 characters', 'x'.repeat(1025)],
    ['malformed percent-encoding', '%E0%A4%A'],
  ])('ignores a fragment token that is no bearer token (%s): waits for the host, forgets the fragment', async (_, hostile) => {
    const h = boot({}, '', {}, `#token=${hostile.startsWith('%') ? hostile : encodeURIComponent(hostile)}`);
    expect(state()).toBe('loading');
    expect(h.requests).toEqual([]);
    expect(h.hashForgotten).toBe(true);
    expect(document.body.innerHTML).not.toContain('<script>');
    await loaded(h);
    expect(h.requests).toEqual(['tok-1']);
  });

  it('forgets the fragment also when it may not talk to its parent (blocked)', () => {
    const h = boot({ originClues: { ancestorOrigin: 'https://evil.example', queryOrigin: null, referrer: '' } }, '', {}, '#token=tok-1');
    expect(state()).toBe('blocked');
    expect(h.requests).toEqual([]);
    expect(h.hashForgotten).toBe(true);
  });

  it('says where it is when sent the token it already runs on: dashboardLoaded again once loaded, tokenExpired again once refused', async () => {
    const h = boot({}, '', {}, '#token=tok-1');
    // Still loading: the same token changes nothing and says nothing.
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
    expect(h.events()).toEqual(['dashboardReadyToLoad']);
    await vi.waitFor(() => expect(h.events()).toEqual(['dashboardReadyToLoad', 'dashboardLoaded']));
    h.height = 640; // not re-measured: the height last reported is repeated
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
    expect(h.posted.slice(1).map((p) => p.message)).toEqual([
      { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 500, loadTime: 123 } },
      { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 500, loadTime: 123 } },
    ]);
    expect(h.posted.every((p) => p.targetOrigin === HOST)).toBe(true);
    expect(h.requests).toEqual(['tok-1']);
    expect(document.body.dataset.tokenGeneration).toBe('1');

    const refused = boot({}, '', {}, '#token=tok-dead');
    await whenState('expired');
    refused.send({ event: 'updateToken', detail: { token: 'tok-dead' } });
    expect(refused.events()).toEqual(['dashboardReadyToLoad', 'tokenExpired', 'tokenExpired']);
    expect(refused.requests).toEqual(['tok-dead']);
  });

  it('swaps the token in place: no blank content while the new token loads', async () => {
    const h = boot();
    await loaded(h);
    const heading = document.querySelector('[data-testid="group-name"]');
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateToken', detail: { token: 'tok-2' } });
    expect(document.body.dataset.tokenGeneration).toBe('2');
    expect(groupName()).toBe('Acme Corp');
    expect(heading?.isConnected).toBe(true);
    await vi.waitFor(() => expect(h.requests).toEqual(['tok-1', 'tok-2']));
    await whenState('ready');
    expect(h.events().filter((e) => e === 'dashboardLoaded')).toHaveLength(1);
  });

  it('says tokenExpired once per token, keeps the content, and recovers on a new token', async () => {
    const h = boot();
    await loaded(h);
    h.groups.delete('tok-1');
    h.tick();
    await whenState('expired');
    h.tick();
    h.tick();
    await Promise.resolve();
    expect(h.events().filter((e) => e === 'tokenExpired')).toHaveLength(1);
    expect(h.requests).toEqual(['tok-1', 'tok-1']);
    expect(groupName()).toBe('Acme Corp');
    // Sent the dead token it runs on (the element confirming the report): it says so again, although it loaded on that token.
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
    expect(h.requests).toHaveLength(2);
    expect(h.events().filter((e) => e === 'tokenExpired')).toHaveLength(2);
    expect(h.events().at(-1)).toBe('tokenExpired');
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateToken', detail: { token: 'tok-2' } });
    await whenState('ready');
    h.tick();
    await vi.waitFor(() => expect(h.requests).toEqual(['tok-1', 'tok-1', 'tok-2', 'tok-2']));
  });

  it('reports an expired first token too', async () => {
    const h = boot();
    h.send({ event: 'updateToken', detail: { token: 'tok-dead' } });
    // A refresh while the first request is still out: two refusals, still one message.
    h.tick();
    await whenState('expired');
    await vi.waitFor(() => expect(h.requests).toEqual(['tok-dead', 'tok-dead']));
    await new Promise((r) => setTimeout(r, 0));
    expect(h.events().filter((e) => e === 'tokenExpired')).toHaveLength(1);
    expect(h.posted.at(-1)).toEqual({ message: { event: 'tokenExpired', detail: { dashboardId: 'sales-overview' } }, targetOrigin: HOST });
  });

  it('ignores the answer for a token that was swapped out while it was in flight', async () => {
    let release: (r: Response) => void = () => {};
    const calls: string[] = [];
    const h = boot({
      fetch: (_, init) => {
        const token = new Headers(init.headers).get('Authorization') ?? '';
        calls.push(token);
        if (token === 'Bearer tok-old') return new Promise<Response>((resolve) => (release = resolve));
        return Promise.resolve(new Response(JSON.stringify(buildDashboardData('sales-overview', acme)), { status: 200 }));
      },
    });
    h.send({ event: 'updateToken', detail: { token: 'tok-old' } });
    h.send({ event: 'updateToken', detail: { token: 'tok-new' } });
    await whenState('ready');
    release(new Response('{}', { status: 401 }));
    await new Promise((r) => setTimeout(r, 0));
    expect(state()).toBe('ready');
    expect(h.events()).not.toContain('tokenExpired');
  });

  it('keeps the content when a refresh fails on the network, and shows an error before any content', async () => {
    const h = boot();
    h.groups.set('tok-1', 'network-error');
    h.send({ event: 'updateToken', detail: { token: 'tok-1' } });
    await whenState('error');
    h.groups.set('tok-1', acme);
    h.tick();
    await whenState('ready');
    h.groups.set('tok-1', 'network-error');
    h.tick();
    await vi.waitFor(() => expect(h.requests).toHaveLength(3));
    await Promise.resolve();
    expect(state()).toBe('ready');
    expect(groupName()).toBe('Acme Corp');
  });

  it('merges updateVariables and shows them', async () => {
    const h = boot();
    h.send({ event: 'updateVariables', detail: { variables: { region: 'US', tier: 'gold' } } });
    await loaded(h);
    const value = (name: string) => document.querySelector<HTMLInputElement>(`[data-var="${name}"] input`)?.value;
    expect(value('region')).toBe('US');
    expect(value('tier')).toBe('gold');
    expect(value('seats')).toBe('42');
    h.send({ event: 'updateVariables', detail: { variables: { seats: 7 } } });
    expect(value('seats')).toBe('7');
    expect(value('region')).toBe('US');
  });

  it('filters the rows by an array from updateVariables, and reports the multi-select as an array', async () => {
    const h = boot();
    await loaded(h);
    const summary = () => document.querySelector<HTMLElement>('[data-testid="filter-summary"]')!;
    expect(summary().dataset.chosen).toBe('EU,US,APAC');
    expect(summary().dataset.rows).toBe('50');
    h.send({ event: 'updateVariables', detail: { variables: { regions: ['EU', 'US'] } } });
    expect(summary().dataset.chosen).toBe('EU,US');
    expect(summary().dataset.rows).toBe('34');
    document.querySelector<HTMLButtonElement>('[data-testid="toggle-details"]')!.click();
    const regions = Array.from(document.querySelectorAll('[data-testid="details-panel"] tbody tr'), (tr) => tr.lastElementChild!.textContent);
    expect(new Set(regions)).toEqual(new Set(['EU', 'US']));
    const select = document.querySelector<HTMLSelectElement>('[data-testid="multi-select"]')!;
    for (const option of select.options) option.selected = option.value === 'APAC';
    select.dispatchEvent(new Event('change'));
    expect(h.posted.at(-1)?.message).toEqual({ event: 'variableUpdated', detail: { varName: 'regions', newValue: ['APAC'] } });
    expect(h.own.at(-1)?.message).toEqual({ event: 'analyticsEventFired', detail: analyticsDetail('Multiselect Selected') });
    expect(summary().dataset.rows).toBe('16');
  });

  it('ignores an updateVariables over the limits whole, also when only the merge is over', async () => {
    const h = boot();
    await loaded(h);
    const summary = () => document.querySelector<HTMLElement>('[data-testid="filter-summary"]')!;
    h.send({ event: 'updateVariables', detail: { variables: { regions: ['EU'], deep: [[[[['x']]]]] } } });
    h.send({ event: 'updateVariables', detail: { variables: { regions: ['EU'], bad: JSON.parse('{"__proto__":{"x":1}}') } } });
    expect(summary().dataset.chosen).toBe('EU,US,APAC');
    const big = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`v${i}`, 'x'.repeat(2000)]));
    h.send({ event: 'updateVariables', detail: { variables: big } });
    h.send({ event: 'updateVariables', detail: { variables: { regions: ['EU'], more: 'x'.repeat(2000) } } });
    expect(summary().dataset.chosen).toBe('EU,US,APAC');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('formats numbers and dates for locale_code with Intl, and shows when the data last arrived', async () => {
    const h = boot({}, '?locale_code=de-de');
    await loaded(h);
    expect(document.documentElement.lang).toBe('de-DE');
    expect(document.body.dataset.locale).toBe('de-DE');
    const refreshed = document.querySelector('[data-testid="last-refreshed"] time')!;
    const at = new Date(refreshed.getAttribute('datetime')!);
    expect(refreshed.textContent).toBe(new Intl.DateTimeFormat('de-DE', { dateStyle: 'medium', timeStyle: 'medium' }).format(at));
    expect(Math.abs(at.getTime() - Date.now())).toBeLessThan(60_000);
    document.querySelector<HTMLButtonElement>('[data-testid="toggle-details"]')!.click();
    const units = document.querySelector('[data-testid="details-panel"] td.num')!.textContent;
    expect(units).toBe(new Intl.NumberFormat('de-DE').format(Number(units.replace(/\D/g, ''))));
  });

  it.each(['not a locale', '', 'x'.repeat(300)])('takes no locale from locale_code=%j', async (code) => {
    const h = boot({}, `?locale_code=${encodeURIComponent(code)}`);
    await loaded(h);
    expect(document.body.dataset.locale).toBe('');
  });

  it('refreshes at refresh-minutes (whole minutes 1-1440), else at its own cadence', () => {
    const cadence = (search: string) => {
      let asked = 0;
      boot({ every: (ms) => (asked = ms) }, search);
      return asked;
    };
    expect(cadence('?refresh-minutes=5')).toBe(300_000);
    expect(cadence('?refresh-minutes=1440')).toBe(86_400_000);
    for (const bad of ['0', '1.5', '1441', '-1', 'soon', '']) expect(cadence(`?refresh-minutes=${bad}`)).toBe(config.dataRefreshMs);
    expect(cadence('')).toBe(config.dataRefreshMs);
  });

  it('posts variableUpdated with a value of the variable’s type when the user edits one', async () => {
    const h = boot();
    await loaded(h);
    const input = document.querySelector<HTMLInputElement>('[data-var="seats"] input');
    if (!input) throw new Error('no seats input');
    input.value = '50';
    input.dispatchEvent(new Event('change'));
    expect(h.posted.at(-1)).toEqual({ message: { event: 'variableUpdated', detail: { varName: 'seats', newValue: 50 } }, targetOrigin: HOST });
    const region = document.querySelector<HTMLInputElement>('[data-var="region"] input');
    if (!region) throw new Error('no region input');
    region.value = 'APAC';
    region.dispatchEvent(new Event('change'));
    expect(h.posted.at(-1)?.message).toEqual({ event: 'variableUpdated', detail: { varName: 'region', newValue: 'APAC' } });
  });

  it('reports growing and shrinking heights once each, clamped, after the toggle', async () => {
    const h = boot();
    await loaded(h);
    const toggle = document.querySelector<HTMLButtonElement>('[data-testid="toggle-details"]');
    if (!toggle) throw new Error('no toggle');
    h.height = 820.2;
    toggle.click();
    expect(document.querySelector('[data-testid="details-panel"]')?.hasAttribute('hidden')).toBe(false);
    expect(document.querySelectorAll('[data-testid="details-panel"] tbody tr')).toHaveLength(3);
    h.resize();
    h.height = 500;
    document.querySelector<HTMLButtonElement>('[data-testid="toggle-details"]')?.click();
    h.height = 99_999;
    h.resize();
    h.resize();
    const heights = h.posted.filter((p) => p.message.event === 'dashboardResized').map((p) => p.message.detail);
    expect(heights).toEqual([{ dashboardHeight: 821 }, { dashboardHeight: 500 }, { dashboardHeight: 20_000 }]);
  });

  it('renders hostile names, property names and values as text', async () => {
    const h = boot();
    h.groups.set('tok-evil', {
      name: '<script>alert(1)</script>',
      providedId: 'evil',
      environment: 'Testing',
      properties: { '<img src=x onerror=alert(2)>': '"><script>alert(3)</script>' },
    });
    h.send({ event: 'updateToken', detail: { token: 'tok-evil' } });
    await whenState('ready');
    expect(groupName()).toBe('<script>alert(1)</script>');
    const root = document.getElementById('dashboard');
    expect(root?.querySelectorAll('script, img')).toHaveLength(0);
    expect(root?.querySelector('.chip-name')?.textContent).toBe('<img src=x onerror=alert(2)>');
    expect(root?.querySelector<HTMLInputElement>('.chip-input')?.value).toBe('"><script>alert(3)</script>');
  });
});

/*
 * The vendor-shaped embed (`GET /iframe/:dashboardId/:customerToken/:environment?`, protocol
 * "explo"): the same page, translating to and from the vendor's event names and shapes
 * (packages/protocol/README.md).
 */
describe('dashboard page, vendor protocol', () => {
  const VENDOR_OUT = ['dashboardReadyToLoad', 'dashboardLoaded', 'dashboardUpdated', 'sendVariableUpdatedEvent', 'customerJwtExpired'];
  const bootExplo = (search = '', token: string | null = 'tok-1') => boot({}, search, { protocol: 'explo', token });
  const value = (name: string) => document.querySelector<HTMLInputElement>(`[data-var="${name}"] input`)?.value;
  const variableNames = () => Array.from(document.querySelectorAll<HTMLElement>('[data-var]'), (chip) => chip.dataset.var);
  const chosen = () => document.querySelector<HTMLElement>('[data-testid="filter-summary"]')!.dataset.chosen!.split(',');
  const sent = (h: Harness) => h.posted.map((p) => p.message as unknown as { event: string; detail: unknown });
  async function explo(search = '') {
    const h = bootExplo(search);
    await whenState('ready');
    await vi.waitFor(() => expect(h.events()).toContain('dashboardLoaded'));
    return h;
  }

  it('repeats nothing when sent its own token again (the vendor page does not)', async () => {
    const h = await explo();
    h.send({ event: 'updateCustomerJwt', detail: { jwt: 'tok-1' } });
    expect(h.events()).toEqual(['dashboardReadyToLoad', 'dashboardLoaded']);
  });

  it('says dashboardReadyToLoad, loads the token from its URL and says dashboardLoaded, to the exact parent origin', async () => {
    const h = await explo();
    expect(h.posted).toEqual([
      { message: { event: 'dashboardReadyToLoad', detail: { dashboardId: 'sales-overview', dashboardHeight: 500 } }, targetOrigin: HOST },
      { message: { event: 'dashboardLoaded', detail: { dashboardId: 'sales-overview', dashboardHeight: 500, loadTime: 123 } }, targetOrigin: HOST },
    ]);
    expect(h.requests).toEqual(['tok-1']);
    expect(groupName()).toBe('Acme Corp');
  });

  it('says dashboardUpdated for a new height and sendVariableUpdatedEvent for an edit, never our names', async () => {
    const h = await explo();
    h.height = 730;
    h.resize();
    const seats = document.querySelector<HTMLInputElement>('[data-var="seats"] input');
    if (!seats) throw new Error('no seats input');
    seats.value = '50';
    seats.dispatchEvent(new Event('change'));
    expect(sent(h).slice(2)).toEqual([
      { event: 'dashboardUpdated', detail: { dashboardHeight: 730 } },
      { event: 'sendVariableUpdatedEvent', detail: { varName: 'seats', newValue: 50 } },
    ]);
    expect(h.posted.every((p) => p.targetOrigin === HOST)).toBe(true);
  });

  it('says customerJwtExpired (no detail) once when its token stops working, and runs on the token of updateCustomerJwt', async () => {
    const h = await explo();
    h.groups.delete('tok-1');
    h.tick();
    await whenState('expired');
    h.tick();
    await Promise.resolve();
    expect(sent(h).filter((m) => m.event === 'customerJwtExpired')).toEqual([{ event: 'customerJwtExpired', detail: {} }]);
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateCustomerJwt', detail: { jwt: 'tok-2' } });
    await whenState('ready');
    expect(h.requests).toEqual(['tok-1', 'tok-1', 'tok-2']);
    expect(document.body.dataset.tokenGeneration).toBe('2');
    expect(h.events().every((event) => VENDOR_OUT.includes(event))).toBe(true);
  });

  it.each([
    ['an unknown token', 'tok-dead', ['tok-dead']],
    ['a path that held no token', null, []],
  ])('says customerJwtExpired for %s', async (_, token, requests) => {
    const h = bootExplo('', token);
    await whenState('expired');
    await vi.waitFor(() => expect(h.events()).toEqual(['dashboardReadyToLoad', 'customerJwtExpired']));
    expect(h.requests).toEqual(requests);
  });

  it('takes JSON variables of any shape from the query and skips refresh-minutes, locale_code and values that are not JSON', async () => {
    const search = `?region=${encodeURIComponent('"US"')}&seats=7&on=true&none=null&locale_code=${encodeURIComponent('"fr"')}&bare=US&obj=${encodeURIComponent('{"a":1}')}&regions=${encodeURIComponent('["EU","APAC"]')}`;
    await explo(search);
    expect(value('region')).toBe('US');
    expect(value('seats')).toBe('7');
    expect(value('obj')).toBe('{"a":1}');
    expect(variableNames()).toEqual(expect.arrayContaining(['region', 'seats', 'on', 'none', 'obj', 'regions']));
    for (const skipped of ['refresh-minutes', 'locale_code', 'bare']) expect(variableNames()).not.toContain(skipped);
    // The multi-select shows the array from the URL, filtering the rows.
    expect(chosen()).toEqual(['EU', 'APAC']);
  });

  it('takes no variable from a query over the limits (not half of them)', async () => {
    await explo(`?region=${encodeURIComponent('"US"')}&regions=${encodeURIComponent(JSON.stringify([[[[['deep']]]]]))}`);
    expect(value('region')).toBe('EU');
    expect(variableNames()).not.toContain('regions');
  });

  it('sets an array from updateExploDashboardVariables and reports the multi-select as an array in sendVariableUpdatedEvent', async () => {
    const h = await explo();
    h.send({ event: 'updateExploDashboardVariables', detail: { variables: [{ varName: 'regions', value: ['US'] }] } });
    expect(chosen()).toEqual(['US']);
    const select = document.querySelector<HTMLSelectElement>('[data-testid="multi-select"]')!;
    for (const option of select.options) option.selected = option.value !== 'US';
    select.dispatchEvent(new Event('change'));
    expect(h.own.at(-1)?.message).toEqual({ event: 'analyticsEventFired', detail: analyticsDetail('Multiselect Selected') });
    expect(h.posted.at(-1)?.message).toEqual({ event: 'sendVariableUpdatedEvent', detail: { varName: 'regions', newValue: ['EU', 'APAC'] } });
    expect(chosen()).toEqual(['EU', 'APAC']);
  });

  it('sets variables from updateExploDashboardVariable and updateExploDashboardVariables', async () => {
    const h = await explo();
    h.send({ event: 'updateExploDashboardVariable', detail: { varName: 'region', value: 'APAC' } });
    expect(value('region')).toBe('APAC');
    h.send({
      event: 'updateExploDashboardVariables',
      detail: {
        variables: [
          { varName: 'seats', value: 9 },
          { varName: 'tier', value: 'gold' },
        ],
      },
    });
    expect(value('seats')).toBe('9');
    expect(value('tier')).toBe('gold');
    expect(value('region')).toBe('APAC');
  });

  const HOSTILE: Array<[string, unknown]> = [
    ['our own updateToken', { event: 'updateToken', detail: { token: 'tok-2' } }],
    ['our own updateVariables', { event: 'updateVariables', detail: { variables: { region: 'XX' } } }],
    ['a JWT event without detail', { event: 'updateCustomerJwt' }],
    ['a JWT event with a null detail', { event: 'updateCustomerJwt', detail: null }],
    ['a JWT event without jwt', { event: 'updateCustomerJwt', detail: {} }],
    ['a JWT event with a number', { event: 'updateCustomerJwt', detail: { jwt: 2 } }],
    ['a JWT event with an empty jwt', { event: 'updateCustomerJwt', detail: { jwt: '' } }],
    ['a JWT event with a 4,097-character jwt', { event: 'updateCustomerJwt', detail: { jwt: 'x'.repeat(4097) } }],
    ['a JWT event with a jwt holding a space', { event: 'updateCustomerJwt', detail: { jwt: 'tok 2' } }],
    ['a JWT inherited through an own "__proto__" key', { event: 'updateCustomerJwt', detail: JSON.parse('{"__proto__":{"jwt":"tok-2"}}') }],
    ['a variable event without varName', { event: 'updateExploDashboardVariable', detail: { value: 'XX' } }],
    ['a variable event with a number as varName', { event: 'updateExploDashboardVariable', detail: { varName: 3, value: 'XX' } }],
    ['a variable event with an empty varName', { event: 'updateExploDashboardVariable', detail: { varName: '', value: 'XX' } }],
    ['a variable event with a value too deep', { event: 'updateExploDashboardVariable', detail: { varName: 'region', value: [[[[['XX']]]]] } }],
    [
      'a variable event with 501 items',
      { event: 'updateExploDashboardVariable', detail: { varName: 'region', value: Array.from({ length: 501 }, () => 'XX') } },
    ],
    [
      'a variable event with a "__proto__" key inside',
      { event: 'updateExploDashboardVariable', detail: { varName: 'region', value: JSON.parse('{"__proto__":{"a":1}}') } },
    ],
    ['a variable named "__proto__"', { event: 'updateExploDashboardVariable', detail: { varName: '__proto__', value: null } }],
    ['a variable named "constructor"', { event: 'updateExploDashboardVariable', detail: { varName: 'constructor', value: 'XX' } }],
    [
      'a variable named "toString"',
      {
        event: 'updateExploDashboardVariables',
        detail: {
          variables: [
            { varName: 'region', value: 'XX' },
            { varName: 'toString', value: 'XX' },
          ],
        },
      },
    ],
    ['a 257-character variable name', { event: 'updateExploDashboardVariable', detail: { varName: 'v'.repeat(257), value: 'XX' } }],
    ['a 10,001-character value', { event: 'updateExploDashboardVariable', detail: { varName: 'region', value: 'X'.repeat(10_001) } }],
    [
      '257 variables',
      { event: 'updateExploDashboardVariables', detail: { variables: Array.from({ length: 257 }, (_, i) => ({ varName: `v${i}`, value: i })) } },
    ],
    ['variables that are no list', { event: 'updateExploDashboardVariables', detail: { variables: { region: 'XX' } } }],
    ['a list holding a non-object', { event: 'updateExploDashboardVariables', detail: { variables: [{ varName: 'region', value: 'XX' }, 'seats'] } }],
    ['a list holding null', { event: 'updateExploDashboardVariables', detail: { variables: [null] } }],
    [
      'a list item inheriting varName through "__proto__"',
      { event: 'updateExploDashboardVariables', detail: { variables: [JSON.parse('{"__proto__":{"varName":"region"},"value":"XX"}')] } },
    ],
    ['an event named "__proto__"', { event: '__proto__', detail: { jwt: 'tok-2' } }],
    ['an event named "constructor"', { event: 'constructor', detail: { varName: 'region', value: 'XX' } }],
    ['a string', 'updateCustomerJwt'],
    ['a number', 42],
    ['null', null],
    ['undefined', undefined],
    ['an array', [{ event: 'updateCustomerJwt', detail: { jwt: 'tok-2' } }]],
  ];

  it.each(HOSTILE)('ignores %s', async (_, data) => {
    const h = await explo();
    h.groups.set('tok-2', acme);
    const before = document.getElementById('dashboard')?.innerHTML;
    h.send(data);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(h.requests).toEqual(['tok-1']);
    expect(document.body.dataset.tokenGeneration).toBe('1');
    expect(document.getElementById('dashboard')?.innerHTML).toBe(before);
    expect(h.posted).toHaveLength(2);
    expect(Object.getOwnPropertyNames(Object.prototype)).not.toContain('varName');
    expect(({} as Record<string, unknown>).jwt).toBeUndefined();
    // The page still listens: the same kind of message, well formed, is taken.
    h.send({ event: 'updateExploDashboardVariable', detail: { varName: 'region', value: 'OK' } });
    expect(value('region')).toBe('OK');
  });

  it.each([
    ['another origin', 'https://evil.com', undefined],
    ['another window', HOST, {}],
  ])('ignores vendor events from %s', async (_, origin, source) => {
    const h = await explo();
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateCustomerJwt', detail: { jwt: 'tok-2' } }, origin, source ?? h.parent);
    h.send({ event: 'updateExploDashboardVariable', detail: { varName: 'region', value: 'XX' } }, origin, source ?? h.parent);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(h.requests).toEqual(['tok-1']);
    expect(value('region')).toBe('EU');
  });

  it('takes a JWT of exactly 1,024 printable characters', async () => {
    const h = await explo();
    const longest = '~'.repeat(1024);
    h.groups.set(longest, acme);
    h.send({ event: 'updateCustomerJwt', detail: { jwt: longest } });
    await vi.waitFor(() => expect(h.requests).toEqual(['tok-1', longest]));
  });
});

describe('dashboard page, vendor protocol with an embed token', () => {
  const embedded = (issuerOrigin: string | null, clues: Partial<PageEnvironment['originClues']> = {}, prepare?: (h: Harness) => void) =>
    boot(
      { originClues: { ancestorOrigin: HOST, queryOrigin: null, referrer: '', ...clues } },
      '',
      { protocol: 'explo', token: 'tok-1', embedToken: { issuerOrigin } },
      '',
      prepare,
    );

  it("talks to the token's iss origin where the browser names no ancestor (Firefox), and names it with every data request", async () => {
    const h = embedded(HOST, { ancestorOrigin: undefined, queryOrigin: 'http://localhost:9999', referrer: 'http://localhost:9999/x' });
    await whenState('ready');
    expect(h.posted.map((p) => p.targetOrigin)).toEqual([HOST, HOST]);
    expect(h.embedOrigins).toEqual([HOST]);
  });

  it('talks to no one when the browser names another ancestor than iss', () => {
    const h = embedded(HOST, { ancestorOrigin: 'http://127.0.0.1:5174' });
    expect(state()).toBe('blocked');
    expect(h.posted).toEqual([]);
    expect(h.requests).toEqual([]);
  });

  it('sends the parent it found (ancestorOrigins, ?origin=, Referer) for a token without iss', async () => {
    const h = embedded(null, { ancestorOrigin: undefined, queryOrigin: HOST });
    await whenState('ready');
    expect(h.embedOrigins).toEqual([HOST]);
  });

  it('shows a refusal (403) without asking for a new token, and stops asking the data route with it', async () => {
    const h = embedded(HOST, {}, (harness) => harness.groups.set('tok-1', 'forbidden'));
    await whenState('refused');
    expect(document.getElementById('status')?.textContent).toMatch(/does not accept/);
    h.tick();
    await Promise.resolve();
    expect(h.requests).toEqual(['tok-1']);
    expect(h.events()).toEqual(['dashboardReadyToLoad']);
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateCustomerJwt', detail: { jwt: 'tok-2' } });
    await whenState('ready');
  });

  it('reloads as the token lapses (once per token) and says customerJwtExpired then, not at the next refresh', async () => {
    const h = embedded(HOST, {}, (harness) => (harness.tokenExpiresInMs = 30_000));
    await whenState('ready');
    h.tick();
    await vi.waitFor(() => expect(h.requests).toHaveLength(2));
    await Promise.resolve();
    expect(h.timers.map((t) => t.ms)).toEqual([30_050]);
    h.groups.delete('tok-1');
    h.timers[0]!.done();
    await whenState('expired');
    expect(h.events()).toEqual(['dashboardReadyToLoad', 'dashboardLoaded', 'customerJwtExpired']);
    h.groups.set('tok-2', acme);
    h.send({ event: 'updateCustomerJwt', detail: { jwt: 'tok-2' } });
    await whenState('ready');
    expect(h.timers).toHaveLength(2);
    // A lapsed timer of a token no longer held loads nothing.
    h.timers[0]!.done();
    await Promise.resolve();
    expect(h.requests).toEqual(['tok-1', 'tok-1', 'tok-1', 'tok-2']);
    expect(h.timers.map((t) => t.ms)).toEqual([30_050, 30_050]);
  });

  it('sets no timer for an absurd time left', async () => {
    const h = embedded(HOST, {}, (harness) => (harness.tokenExpiresInMs = 2 ** 31));
    await whenState('ready');
    expect(h.timers).toEqual([]);
  });
});
