import { act, createElement, createRef } from 'react';
import { createRoot, hydrateRoot, type Root } from 'react-dom/client';
import { renderToString } from 'react-dom/server';
import { afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest';
import { EmbeddedDashboard as EmbeddedDashboardElement } from '@embedded-dashboard/element';
import '@embedded-dashboard/element/superset';
import '@embedded-dashboard/element/metabase';
import type { TokenResponse } from '@embedded-dashboard/protocol';
import { EmbeddedDashboard, type EmbeddedDashboardProps } from './index.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const TEMPLATE = 'https://dash.example.com/iframe/{dashboard}';
/** A token source that never answers: these tests are about props and events, not tokens. */
const pendingToken = () => new Promise<TokenResponse>(() => undefined);

/** Stubs `fetch` with one that never answers and records each token request's JSON body. */
function recordTokenRequests(): unknown[] {
  const bodies: unknown[] = [];
  vi.stubGlobal('fetch', (_url: string, init: RequestInit) => {
    bodies.push(JSON.parse(String(init.body)));
    return new Promise<Response>(() => undefined);
  });
  return bodies;
}

describe('EmbeddedDashboard on the server', () => {
  it('renders the element with its attributes (variables as JSON) and no handlers or functions', () => {
    const html = renderToString(
      createElement(EmbeddedDashboard, {
        dashboard: 'sales-overview',
        srcTemplate: TEMPLATE,
        tokenUrl: '/api/embed/token',
        environment: 'Customer',
        variables: { region: 'EU', seats: 3, regions: ['EU', 'US'] },
        localeCode: 'de-DE',
        refreshMinutes: 15,
        refreshMargin: 30,
        noAutoResize: true,
        withCredentials: false,
        reportTimings: true,
        traceContext: true,
        label: 'Sales',
        sandbox: 'allow-scripts allow-same-origin',
        allow: 'fullscreen; clipboard-write',
        className: 'wide',
        fetchToken: pendingToken,
        onLoad: () => undefined,
        onError: () => undefined,
      }),
    );
    expect(html).toBe(
      '<embedded-dashboard class="wide" dashboard="sales-overview" src-template="https://dash.example.com/iframe/{dashboard}" ' +
        'token-url="/api/embed/token" environment="Customer" variables="{&quot;region&quot;:&quot;EU&quot;,&quot;seats&quot;:3,&quot;regions&quot;:[&quot;EU&quot;,&quot;US&quot;]}" ' +
        'locale-code="de-DE" refresh-minutes="15" label="Sales" sandbox="allow-scripts allow-same-origin" allow="fullscreen; clipboard-write" refresh-margin="30" no-auto-resize="" report-timings="" trace-context=""></embedded-dashboard>',
    );
  });

  it('renders slotted children (a custom error message)', () => {
    const html = renderToString(
      createElement(EmbeddedDashboard, { dashboard: 'd', srcTemplate: TEMPLATE }, createElement('p', { slot: 'error' }, 'Sign in again')),
    );
    expect(html).toContain('<p slot="error">Sign in again</p></embedded-dashboard>');
  });
});

describe('EmbeddedDashboard in the browser', () => {
  let root: Root | undefined;
  let container: HTMLElement;
  let consoleError: MockInstance<typeof console.error>;
  beforeEach(() => {
    consoleError = vi.spyOn(console, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => {
    act(() => root?.unmount());
    container?.remove();
    // React's warnings go to console.error: there must be none. happy-dom reports (there) that it
    // does not load iframe pages, which is expected here.
    const errors = consoleError.mock.calls.map((args) => String(args[0])).filter((text) => !text.includes('Iframe page loading is disabled'));
    consoleError.mockRestore();
    expect(errors).toEqual([]);
  });

  function render(props: EmbeddedDashboardProps) {
    act(() => root!.render(createElement(EmbeddedDashboard, props)));
    return container.querySelector('embedded-dashboard')!;
  }
  function mount(props: EmbeddedDashboardProps) {
    container = document.body.appendChild(document.createElement('div'));
    root = createRoot(container);
    return render(props);
  }

  it('renders the real element, gives its ref, and sets variables from an object', async () => {
    const ref = createRef<EmbeddedDashboardElement>();
    const el = mount({
      ref,
      dashboard: 'sales-overview',
      srcTemplate: TEMPLATE,
      variables: { region: 'EU', regions: ['EU', 'US'] },
      localeCode: 'de-DE',
      refreshMinutes: 15,
      fetchToken: pendingToken,
    });
    expect(el).toBeInstanceOf(EmbeddedDashboardElement);
    expect(ref.current).toBe(el);
    expect(el.dashboard).toBe('sales-overview');
    expect(el.srcTemplate).toBe(TEMPLATE);
    expect(el.fetchToken).toBe(pendingToken);
    expect(JSON.parse(String(el.variables))).toEqual({ region: 'EU', regions: ['EU', 'US'] });
    await el.updateComplete;
    expect(el.currentVariables).toEqual({ region: 'EU', regions: ['EU', 'US'] });
    expect([el.localeCode, el.refreshMinutes]).toEqual(['de-DE', 15]);
    expect(el.problem).toBeUndefined();
  });

  it('a single-chart embed: protocol and chart rendered as attributes (server HTML too), and the token request carries chart', async () => {
    const props = {
      dashboard: 'sales-overview',
      chart: 'revenue-by-month',
      protocol: 'explo-jwt',
      srcTemplate: 'https://dash.example.com/iframe/{token}',
    } as const;
    expect(renderToString(createElement(EmbeddedDashboard, props))).toBe(
      '<embedded-dashboard dashboard="sales-overview" chart="revenue-by-month" protocol="explo-jwt" src-template="https://dash.example.com/iframe/{token}"></embedded-dashboard>',
    );
    const bodies = recordTokenRequests();
    try {
      const el = mount(props);
      await el.updateComplete;
      expect([el.protocol, el.chart, el.problem]).toEqual(['explo-jwt', 'revenue-by-month', undefined]);
      await vi.waitFor(() => expect(bodies).toEqual([{ dashboard: 'sales-overview', chart: 'revenue-by-month' }]));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a Superset embed: protocol="superset" and its own attributes rendered as written, the token request names the dashboard', async () => {
    const props = {
      dashboard: '5b7a3c1e-8f2d-4e6a-9c0b-1d2e3f4a5b6c',
      protocol: 'superset',
      srcTemplate: 'https://bi.example.com/embedded/{dashboard}',
      'hide-title': '',
    } as const;
    expect(renderToString(createElement(EmbeddedDashboard, props))).toBe(
      '<embedded-dashboard hide-title="" dashboard="5b7a3c1e-8f2d-4e6a-9c0b-1d2e3f4a5b6c" protocol="superset" src-template="https://bi.example.com/embedded/{dashboard}"></embedded-dashboard>',
    );
    const bodies = recordTokenRequests();
    try {
      const el = mount(props);
      await el.updateComplete;
      expect([el.protocol, el.problem]).toEqual(['superset', undefined]);
      expect(el.shadowRoot!.querySelector('iframe')!.getAttribute('src')).toBe(
        'https://bi.example.com/embedded/5b7a3c1e-8f2d-4e6a-9c0b-1d2e3f4a5b6c?uiConfig=17',
      );
      await vi.waitFor(() => expect(bodies).toEqual([{ dashboard: props.dashboard }]));
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('a Metabase embed: protocol="metabase" and its hash options rendered as written, the token request names the dashboard, then the frame is its guest embed', async () => {
    const props = {
      dashboard: '7',
      protocol: 'metabase' as const,
      srcTemplate: 'https://mb.example.com/embed/dashboard/{token}',
      variables: { region: ['north', 'south'] },
      bordered: 'false',
      theme: 'night',
    };
    expect(renderToString(createElement(EmbeddedDashboard, props))).toBe(
      '<embedded-dashboard bordered="false" theme="night" dashboard="7" protocol="metabase" src-template="https://mb.example.com/embed/dashboard/{token}" variables="{&quot;region&quot;:[&quot;north&quot;,&quot;south&quot;]}"></embedded-dashboard>',
    );
    const el = mount({ ...props, fetchToken: async () => ({ token: 'a.b.c', expiresAt: Date.now() + 600_000, serverTime: Date.now() }) });
    await vi.waitFor(() =>
      expect(el.shadowRoot!.querySelector('iframe')!.getAttribute('src')).toBe(
        'https://mb.example.com/embed/dashboard/a.b.c?region=north&region=south#bordered=false&theme=night',
      ),
    );
    expect([el.protocol, el.dashboard, el.problem]).toEqual(['metabase', '7', undefined]);
  });

  it('a Metabase question: chart without dashboard reaches the element, the token request names the question alone', async () => {
    const props = { chart: '12', protocol: 'metabase', srcTemplate: 'https://mb.example.com/embed/dashboard/{token}', label: 'Sales rows' } as const;
    expect(renderToString(createElement(EmbeddedDashboard, props))).toBe(
      '<embedded-dashboard chart="12" protocol="metabase" src-template="https://mb.example.com/embed/dashboard/{token}" label="Sales rows"></embedded-dashboard>',
    );
    const bodies = recordTokenRequests();
    try {
      const el = mount(props);
      await el.updateComplete;
      expect([el.protocol, el.dashboard, el.chart, el.problem]).toEqual(['metabase', undefined, '12', undefined]);
      await vi.waitFor(() => expect(bodies).toEqual([{ chart: '12' }]));
    } finally {
      vi.unstubAllGlobals();
    }
    // Both, or a question under another protocol, do not type-check.
    // @ts-expect-error a question is chart alone, under protocol="metabase"
    void createElement(EmbeddedDashboard, { chart: '12', srcTemplate: 'https://mb.example.com/embed/dashboard/{token}' });
  });

  it('calls the camelCase handlers with the typed events, and follows a new handler', () => {
    const first = vi.fn();
    const second = vi.fn();
    const onError = vi.fn();
    const onToken = vi.fn();
    const onResize = vi.fn();
    const onVariableChange = vi.fn();
    const onCustomEvent = vi.fn();
    const onLocation = vi.fn();
    const props = { dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken, onError, onToken, onResize, onVariableChange, onCustomEvent, onLocation };
    const el = mount({ ...props, onLoad: first });
    const fire = (type: string, detail: object) => el.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));
    fire('dashboard-load', { dashboardId: 'd', height: 500, loadTime: 12 });
    expect(first).toHaveBeenCalledTimes(1);
    expect(first.mock.calls[0]![0].detail).toEqual({ dashboardId: 'd', height: 500, loadTime: 12 });

    render({ ...props, onLoad: second });
    fire('dashboard-load', { dashboardId: 'd', height: 500, loadTime: 13 });
    expect(first).toHaveBeenCalledTimes(1);
    expect(second).toHaveBeenCalledTimes(1);

    fire('dashboard-token', { reason: 'initial', expiresAt: null });
    fire('dashboard-resize', { height: 640 });
    fire('dashboard-variable-change', { name: 'region', value: 'US' });
    fire('dashboard-error', { code: 'network', message: 'offline', retryable: true });
    fire('dashboard-custom-event', { name: 'exportClicked', detail: { customerName: 'Acme' } });
    // Metabase's frame moved (a filter set): the element's dashboard-location.
    fire('dashboard-location', { search: '?region=north', hash: '#titled=true' });
    expect(onLocation.mock.calls[0]![0].detail).toEqual({ search: '?region=north', hash: '#titled=true' });
    expect(onCustomEvent.mock.calls[0]![0].detail).toEqual({ name: 'exportClicked', detail: { customerName: 'Acme' } });
    expect(onToken.mock.calls[0]![0].detail.reason).toBe('initial');
    expect(onResize.mock.calls[0]![0].detail.height).toBe(640);
    expect(onVariableChange.mock.calls[0]![0].detail).toEqual({ name: 'region', value: 'US' });
    expect(onError.mock.calls[0]![0].detail.code).toBe('network');
    // React's own `load`/`error` events are not what these props mean.
    el.dispatchEvent(new Event('load'));
    el.dispatchEvent(new Event('error'));
    expect(second).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledTimes(1);
  });

  it('attaches the handlers and fetchToken when it hydrates server HTML, with no hydration warning', () => {
    // React 19 itself does not attach on<event> props of custom elements while hydrating (facebook/react#35446).
    vi.stubGlobal('fetch', () => new Promise<Response>(() => undefined));
    try {
      const onLoad = vi.fn();
      const app = createElement(EmbeddedDashboard, { dashboard: 'd', srcTemplate: TEMPLATE, variables: { region: 'EU' }, fetchToken: pendingToken, onLoad });
      container = document.body.appendChild(document.createElement('div'));
      container.innerHTML = renderToString(app);
      const el = container.querySelector('embedded-dashboard')!;
      act(() => {
        root = hydrateRoot(container, app);
      });
      expect(container.querySelector('embedded-dashboard')).toBe(el);
      expect(el.fetchToken).toBe(pendingToken);
      el.dispatchEvent(new CustomEvent('dashboard-load', { detail: { dashboardId: 'd', height: 1, loadTime: 2 } }));
      expect(onLoad).toHaveBeenCalledTimes(1);
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('removes a handler that is no longer passed', () => {
    const onLoad = vi.fn();
    const el = mount({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken, onLoad });
    render({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken });
    el.dispatchEvent(new CustomEvent('dashboard-load', { detail: {} }));
    expect(onLoad).not.toHaveBeenCalled();
  });

  it('compares variables by value: an equal new object does not touch the element, a different one does', async () => {
    const el = mount({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken, variables: { region: 'EU' } });
    const before = el.variables;
    render({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken, variables: { region: 'EU' } });
    expect(el.variables).toBe(before);
    render({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken, variables: { region: 'US', beta: true, note: null } });
    await el.updateComplete;
    expect(JSON.parse(String(el.variables))).toEqual({ region: 'US', beta: true, note: null });
    expect(el.problem).toBeUndefined();
  });

  it('sets and clears the boolean attributes', () => {
    const el = mount({
      dashboard: 'd',
      srcTemplate: TEMPLATE,
      fetchToken: pendingToken,
      noAutoResize: true,
      withCredentials: true,
      reportTimings: true,
      traceContext: true,
    });
    expect(el.hasAttribute('no-auto-resize')).toBe(true);
    expect(el.withCredentials).toBe(true);
    // The element/timings module the component brings defines the property over the attribute.
    expect(el.reportTimings).toBe(true);
    // And element/trace-context's, over its attribute.
    expect([el.hasAttribute('trace-context'), el.traceContext]).toEqual([true, true]);
    render({ dashboard: 'd', srcTemplate: TEMPLATE, fetchToken: pendingToken });
    expect(el.hasAttribute('no-auto-resize')).toBe(false);
    expect(el.hasAttribute('with-credentials')).toBe(false);
    expect(el.reportTimings).toBe(false);
    expect([el.hasAttribute('trace-context'), el.traceContext]).toEqual([false, false]);
  });
});
