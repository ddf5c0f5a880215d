import type { DashboardMessage, DashboardVariables, VariableValue } from '@embedded-dashboard/protocol';
import type { DashboardData } from './dashboard-data.js';
import type { PageConfig, PageEnvironment, PageLibrary } from './page-inputs.js';

/**
 * The dashboard page's behaviour (ARCHITECTURE §6). Inlined into the page as source text,
 * so it reaches everything through its parameters. `<body>` carries the test hooks
 * `data-state` (loading | ready | expired | refused | error | blocked), `data-token-generation` and
 * `data-sized-width` (the viewport width at which the height said in `dashboardReadyToLoad` was measured).
 */
export function runDashboardPage(config: PageConfig, env: PageEnvironment, lib: PageLibrary): void {
  const doc = env.window.document;
  const body = doc.body;
  const root = doc.getElementById('dashboard') as HTMLElement;
  const status = doc.getElementById('status') as HTMLElement;
  const params = new URLSearchParams(env.search);

  let token: string | undefined;
  let generation = 0;
  /** The token generation the data route refused (expired, or not accepted): not asked again. */
  let refusedFor = -1;
  /** The token generation whose expiry a timer waits for. */
  let watchedExpiry = -1;
  let data: DashboardData | undefined;
  let overrides: DashboardVariables = {};
  let detailsOpen = false;
  let loaded = false;
  let loadTime = 0;
  let lastHeight = 0;
  /** When the data last arrived (ms since the epoch), shown as "Last refreshed". */
  let refreshedAt: number | undefined;
  const problem = (variables: unknown) => lib.variablesProblem(variables, config.variableLimits);
  // The documented iframe options, in every protocol: `locale_code` formats numbers and dates
  // (Intl), `refresh-minutes` is the data refresh cadence. Anything else is as if absent.
  let locale: string | undefined;
  try {
    locale = Intl.getCanonicalLocales(params.get('locale_code') ?? [])[0];
  } catch {
    locale = undefined;
  }
  const minutes = Number(params.get('refresh-minutes') ?? NaN);
  const refreshMinutes = Number.isInteger(minutes) && minutes >= 1 && minutes <= 1440 ? minutes : undefined;
  if (locale) doc.documentElement.lang = locale;
  body.dataset.locale = locale ?? '';
  body.dataset.refreshMinutes = String(refreshMinutes ?? '');

  const setState = (next: string, text: string) => {
    body.dataset.state = next;
    status.textContent = text;
    // Busy only while loading: a layout left without data (no token, refused, failing) is not about to change.
    if (next !== 'loading') root.removeAttribute('aria-busy');
  };
  body.dataset.tokenGeneration = '0';

  const explo = config.protocol === 'explo';
  /** What the data route takes as a bearer token: 1-1024 visible ASCII characters. */
  const isBearer = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x7e]{1,1024}$/.test(value);
  // A first token in the fragment (`#token=`, what a server-rendered frame carries) goes to no
  // server and into no Referer. Taken only when it is what a bearer token can be (visible ASCII,
  // 1-1024 characters, as the data route's header); the fragment is dropped from the URL either
  // way, once the data request has gone out (replaceState costs milliseconds).
  const fragment = new URLSearchParams(env.hash.slice(1)).get('token');
  const fragmentToken = isBearer(fragment) ? fragment : undefined;
  const forgetFragment = () => fragment !== null && env.forgetHash();

  // An embed token with `iss` is valid only inside a frame on that origin, which the page was served
  // to alone (`frame-ancestors`): the parent is that origin, also where the browser does not say
  // (Firefox has no ancestorOrigins); where it says otherwise, the page talks to no one.
  const issuer = config.embedToken?.issuerOrigin;
  const clues = issuer ? { ...env.originClues, queryOrigin: issuer, referrer: '' } : env.originClues;
  const resolved = env.parent ? lib.resolveParentOrigin(clues, config.embedOrigins, lib.matchesOrigin) : undefined;
  const parentOrigin = issuer && resolved !== issuer ? undefined : resolved;
  const post = (message: DashboardMessage) => {
    if (env.parent && parentOrigin) env.parent.postMessage(explo ? lib.toVendorMessage(message) : message, parentOrigin);
  };
  /** The dashboard's own events (a JS Event Button's, analyticsEventFired): the same `{ event, detail }` in every protocol. */
  const postOwn = (event: string, detail: object) => {
    if (env.parent && parentOrigin) env.parent.postMessage({ event, detail }, parentOrigin);
  };
  /**
   * An analytics event as the vendor's Analytics Reporting page documents its data (`user_id`,
   * `name`, `properties`, `custom_properties`); of the metadata properties only `customer_name`,
   * since the stored page is cut off after it (packages/protocol/README.md). No user here: `user_id` is ''.
   */
  const analytics = (name: string) =>
    data && postOwn('analyticsEventFired', { user_id: '', name, properties: { customer_name: data.group.name }, custom_properties: {} });
  /** Loaded: the height last reported and the first load's time (the same each time it is said). */
  const sayLoaded = () => post({ event: 'dashboardLoaded', detail: { dashboardId: config.dashboardId, dashboardHeight: lastHeight, loadTime } });
  if (env.parent && !parentOrigin) {
    setState('blocked', 'This page is not allowed to talk to the page embedding it.');
    forgetFragment();
    return;
  }

  const clampHeight = (height: number) => Math.min(config.maxHeight, Math.max(config.minHeight, Math.ceil(height)));
  /** Whether a height was said (`dashboardReadyToLoad`, the layout's): from then on every change is said, before the data too. */
  let sized = false;
  const reportHeight = () => {
    if (!sized) return;
    const height = clampHeight(env.measureHeight());
    if (height === lastHeight) return;
    lastHeight = height;
    post({ event: 'dashboardResized', detail: { dashboardHeight: height } });
  };

  const detailRows = (variables: DashboardVariables) => {
    const asked = Number(variables.rows);
    return Number.isInteger(asked) ? Math.min(config.maxDetailRows, Math.max(1, asked)) : config.defaultDetailRows;
  };
  /** Renders `shown` (the data, or the layout before it) with the variables the host set over its own. */
  const draw = (shown: DashboardData) => {
    const variables = { ...shown.variables, ...overrides };
    lib.renderDashboard(root, shown, {
      variables,
      locale,
      refreshedAt,
      detailsOpen,
      detailRows: detailRows(variables),
      onToggleDetails: () => {
        detailsOpen = !detailsOpen;
        render();
      },
      onJsEvent: () => data && postOwn(data.jsEventButton.eventName, { customerName: data.group.name, customerProvidedId: data.group.providedId }),
      onVariableChange: (name: string, value: VariableValue) => {
        const next = { ...overrides, [name]: value };
        if (problem(next)) return;
        overrides = next;
        post({ event: 'variableUpdated', detail: { varName: name, newValue: value } });
        if (Array.isArray(value)) analytics('Multiselect Selected');
        render();
      },
    });
  };
  /** The layout before the data is a placeholder: inert, busy for assistive technology, drawn as a skeleton. */
  const setPlaceholder = (on: boolean) => {
    root.classList.toggle('skeleton', on);
    root.toggleAttribute('inert', on);
    if (on) root.setAttribute('aria-busy', 'true');
    else root.removeAttribute('aria-busy');
  };
  const render = () => {
    if (!data) return;
    setPlaceholder(false);
    draw(data);
    reportHeight();
  };

  const isDashboardData = (value: unknown): value is DashboardData => {
    if (typeof value !== 'object' || value === null) return false;
    const candidate = value as Partial<DashboardData>;
    return candidate.dashboardId === config.dashboardId && typeof candidate.group === 'object' && Array.isArray(candidate.charts);
  };

  const failed = () => {
    if (data) status.textContent = 'Could not refresh the data; showing the last version.';
    else setState('error', 'Could not load the dashboard data; retrying.');
  };

  const load = async () => {
    const forGeneration = generation;
    const current = token;
    if (!current) return;
    let response: Response;
    let payload: unknown;
    try {
      response = await env.fetch(config.dataUrl, {
        headers: { Authorization: `Bearer ${current}`, ...(config.embedToken && parentOrigin && { 'Embed-Origin': parentOrigin }) },
        cache: 'no-store',
        credentials: 'omit',
      });
      payload = response.ok ? await response.json() : undefined;
    } catch {
      if (forGeneration === generation) failed();
      return;
    }
    // A swap happened while this request was out: its answer is about a token no longer held.
    if (forGeneration !== generation) return;
    if (response.status === 401) {
      setState('expired', 'Session expired: waiting for a new token.');
      if (refusedFor !== forGeneration) {
        refusedFor = forGeneration;
        post({ event: 'tokenExpired', detail: { dashboardId: config.dashboardId } });
      }
      return;
    }
    if (response.status === 403 && config.embedToken) {
      // Not a token to renew (another dashboard's, another origin's, a wrong key): said, not retried.
      refusedFor = forGeneration;
      setState('refused', 'The embedding page sent a token this dashboard does not accept.');
      return;
    }
    if (!isDashboardData(payload)) {
      failed();
      return;
    }
    data = payload;
    refreshedAt = Date.now();
    setState('ready', 'Live data');
    // The embed token's end, from the data route: reload then, to say customerJwtExpired as it lapses.
    const left = (payload as { tokenExpiresInMs?: unknown }).tokenExpiresInMs;
    if (config.embedToken && watchedExpiry !== forGeneration && typeof left === 'number' && left > 0 && left < 2 ** 31 - 1) {
      watchedExpiry = forGeneration;
      env.after(left + 50, () => forGeneration === generation && void load());
    }
    render();
    if (!loaded) {
      loaded = true;
      lastHeight = clampHeight(env.measureHeight());
      loadTime = Math.round(env.now());
      sayLoaded();
      analytics('Dashboard Page Viewed');
    }
  };

  const useToken = (next: string) => {
    if (next === token) {
      // The token in use, sent again: nothing changes, but a host whose script started after
      // this page had its token from the URL (loaded late, §6) learns where the page is.
      if (explo) return;
      // Refused since it loaded: the page runs on a dead token, and says so.
      if (refusedFor === generation) post({ event: 'tokenExpired', detail: { dashboardId: config.dashboardId } });
      else if (loaded) sayLoaded();
      return;
    }
    token = next;
    generation += 1;
    body.dataset.tokenGeneration = String(generation);
    void load();
  };

  env.window.addEventListener('message', (event: MessageEvent) => {
    if (!env.parent || event.source !== (env.parent as unknown) || event.origin !== parentOrigin) return;
    const message = lib.parseHostMessage(explo ? lib.fromVendorMessage(event.data) : event.data, problem);
    if (!message) return;
    if (message.event === 'updateToken') useToken(message.detail.token);
    else {
      // Within the limits as a whole, or not at all.
      const next = { ...overrides, ...message.detail.variables };
      if (problem(next)) return;
      overrides = next;
      render();
    }
  });

  env.observeResize(doc.getElementById('app') ?? body, reportHeight);
  env.every(refreshMinutes ? refreshMinutes * 60_000 : config.dataRefreshMs, () => {
    // A token the server refused is not asked again; a new token restarts the refresh.
    if (token && refusedFor !== generation) void load();
  });

  setState('loading', env.parent ? 'Waiting for the host page…' : 'Open this page inside an embedding page, or pass ?token=.');
  if (explo) {
    // Variables in the query are JSON values of any shape (`?region="EU"`, `?regions=["EU","US"]`);
    // the other documented parameters are not variables. Over the limits as a whole: none are taken.
    const fromUrl: Record<string, unknown> = {};
    for (const [name, raw] of params) {
      if (name === 'refresh-minutes' || name === 'locale_code') continue;
      try {
        Object.defineProperty(fromUrl, name, { value: JSON.parse(raw), enumerable: true, writable: true, configurable: true });
      } catch {
        // Not JSON: the vendor documents quoted strings, so this is no variable.
      }
    }
    if (!problem(fromUrl)) overrides = fromUrl as DashboardVariables;
  }
  // The layout first, so the height said is the one the dashboard will have: the host sizes its
  // frame now, not when the data arrives (no jump below the frame once the data is drawn).
  setPlaceholder(true);
  draw(config.layout);
  // A layout whose height changes before the data (the frame given its width late) says so at once: no jump when the data comes.
  lastHeight = clampHeight(env.measureHeight());
  sized = true;
  // The viewport width that height was measured at: a browser may give the frame its width later
  // (the height is then said again), which a test can tell from this and `innerWidth`.
  body.dataset.sizedWidth = String(env.window.innerWidth);
  post({ event: 'dashboardReadyToLoad', detail: { dashboardId: config.dashboardId, dashboardHeight: lastHeight } });
  if (explo) {
    if (config.token) useToken(config.token);
    else {
      setState('expired', 'This link holds no valid customer token.');
      post({ event: 'tokenExpired', detail: { dashboardId: config.dashboardId } });
    }
    return;
  }
  // The fragment's token (read above), then `?token=`.
  const urlToken = fragmentToken || params.get('token');
  if (urlToken) useToken(urlToken);
  forgetFragment();
}
