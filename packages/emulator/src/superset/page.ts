import {
  SUPERSET_COMMS_TYPE,
  SUPERSET_FILTER_PARAMS,
  SUPERSET_GUEST_TOKEN_HEADER,
  SUPERSET_PORT_TRANSFER,
  SupersetFrameMethod,
  SupersetHostMethod,
  SupersetUiConfig,
} from '@embedded-dashboard/protocol';
import type { SupersetSampleChart, SupersetSampleDashboard } from './sample-data.js';

/**
 * The Superset mode's embeddable page, `/embedded/<uuid>`: what Superset 6.1.0's embedded entry
 * (superset-frontend/src/embedded/index.tsx, built as `static/assets/embedded.*.entry.js`) does that
 * a host can see. It waits for `{ type: "__embedded_comms__", handshake: "port transfer" }` with a
 * `MessagePort` (a later handshake replaces the port, as the real one re-initialises), speaks the
 * switchboard protocol over it, renders after the first `guestToken` emit (first
 * `/api/v1/me/roles/`, then each chart's data with the token in `X-GuestToken`), swaps the token on
 * a later emit without reloading (and reloads the data only if the last load was refused), answers
 * `getScrollSize` (the body's scroll size: at least the frame's own height, as before Superset PR
 * #44313), `getDataMask`, `getActiveTabs`, `getDashboardPermalink`; a method it does not define is
 * answered with the switchboard's error. `uiConfig` (bits) and `show_filters`/`expand_filters` come
 * from the URL; with the `emitDataMasks` bit a filter change is emitted as `observeDataMask`.
 * The page's state is on `document.body.dataset.state` (waiting, loading, loaded, refused, error).
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
/** JSON safe inside a `<script>` element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function pageNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url');
}

export interface EmbeddedPageInput {
  dashboard: SupersetSampleDashboard;
  charts: readonly SupersetSampleChart[];
  datasetId: number;
  nonce: string;
}

export function embeddedPage({ dashboard, charts, datasetId, nonce }: EmbeddedPageInput): string {
  const config = {
    dashboardId: dashboard.id,
    uuid: dashboard.uuid,
    datasetId,
    charts: charts.map((chart) => ({ id: chart.id, name: chart.name, columns: chart.columns, metrics: chart.metrics })),
    names: {
      commsType: SUPERSET_COMMS_TYPE,
      portTransfer: SUPERSET_PORT_TRANSFER,
      guestTokenHeader: SUPERSET_GUEST_TOKEN_HEADER,
      filterVisible: SUPERSET_FILTER_PARAMS.visible,
      filterExpanded: SUPERSET_FILTER_PARAMS.expanded,
      frame: SupersetFrameMethod,
      host: SupersetHostMethod,
      ui: SupersetUiConfig,
    },
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${escapeHtml(dashboard.title)}</title>
<style nonce="${nonce}">
html, body { height: 100%; margin: 0; background: transparent; font: 14px/1.4 system-ui, sans-serif; }
main { padding: 12px 16px; }
h1 { font-size: 18px; margin: 0 0 8px; }
.filters { margin: 0 0 12px; }
.filters[hidden], h1[hidden], .controls[hidden] { display: none; }
.chart { border: 1px solid #ddd; border-radius: 4px; padding: 8px; margin: 0 0 12px; }
.chart header { display: flex; justify-content: space-between; font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eee; }
</style>
</head>
<body data-state="waiting">
<main id="dashboard" aria-busy="true">
<h1 id="title">${escapeHtml(dashboard.title)}</h1>
<div class="filters" id="filters"><label>Region <select id="region"><option value="">All</option><option>north</option><option>south</option><option>east</option><option>west</option></select></label></div>
<div id="charts"><p id="message">Loading…</p></div>
</main>
<script type="application/json" id="embedded-config" nonce="${nonce}">${scriptJson(config)}</script>
<script nonce="${nonce}">
(() => {
  'use strict';
  const config = JSON.parse(document.getElementById('embedded-config').textContent);
  const names = config.names;
  const params = new URLSearchParams(location.search);
  const uiConfig = Number(params.get('uiConfig')) || 0;
  const has = (bit) => (uiConfig & bit) === bit;
  const body = document.body;
  const main = document.getElementById('dashboard');
  const chartsEl = document.getElementById('charts');
  const region = document.getElementById('region');
  document.getElementById('title').hidden = has(names.ui.hideTitle);
  document.getElementById('filters').hidden = params.get(names.filterVisible) === 'false';
  let port = null;
  let token = null;
  let rendered = false;
  let refused = false;
  let loads = 0;
  let dataMask = {};

  const setState = (state, text) => {
    body.dataset.state = state;
    main.setAttribute('aria-busy', state === 'loading' ? 'true' : 'false');
    if (text !== undefined) chartsEl.replaceChildren(Object.assign(document.createElement('p'), { id: 'message', textContent: text }));
  };

  const api = (path, init = {}) =>
    fetch(path, { ...init, credentials: 'same-origin', headers: { ...(init.headers || {}), [names.guestTokenHeader]: token } });

  const render = (results) => {
    const sections = results.map(({ chart, data }) => {
      const section = document.createElement('section');
      section.className = 'chart';
      section.dataset.chartId = String(chart.id);
      const header = document.createElement('header');
      const title = document.createElement('span');
      title.textContent = chart.name;
      const controls = document.createElement('span');
      controls.className = 'controls';
      controls.textContent = '⋯';
      controls.hidden = has(names.ui.hideChartControls);
      header.append(title, controls);
      const table = document.createElement('table');
      const columns = [...chart.columns, ...chart.metrics];
      const head = table.createTHead().insertRow();
      for (const column of columns) head.append(Object.assign(document.createElement('th'), { textContent: column }));
      const tbody = table.createTBody();
      for (const row of data) {
        const tr = tbody.insertRow();
        tr.dataset.customer = String(row.customer_id);
        for (const column of columns) tr.insertCell().textContent = String(row[column]);
      }
      section.append(header, table);
      return section;
    });
    chartsEl.replaceChildren(...sections);
  };

  const load = async () => {
    const mine = ++loads;
    setState('loading');
    const region_ = region.value;
    try {
      const results = [];
      for (const chart of config.charts) {
        const filters = region_ ? [{ col: 'region', op: 'IN', val: [region_] }] : [];
        const answer = await api('/api/v1/chart/data', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({
            datasource: { id: config.datasetId, type: 'table' },
            force: false,
            queries: [{ columns: chart.columns, metrics: chart.metrics, orderby: [], row_limit: 1000, filters, extras: { having: '', where: '' } }],
            form_data: { slice_id: chart.id, dashboardId: config.dashboardId, viz_type: 'table', datasource: config.datasetId + '__table' },
            result_format: 'json',
            result_type: 'full',
          }),
        });
        if (mine !== loads) return;
        if (answer.status === 401 || answer.status === 403) {
          refused = true;
          setState('refused', 'This dashboard could not be loaded: the guest token was refused (' + answer.status + ').');
          return;
        }
        if (!answer.ok) throw new Error('chart data answered ' + answer.status);
        results.push({ chart, data: (await answer.json()).result[0].data });
      }
      if (mine !== loads) return;
      refused = false;
      render(results);
      setState('loaded');
    } catch (error) {
      if (mine === loads) setState('error', 'This dashboard could not be loaded.');
    }
  };

  const start = async () => {
    setState('loading');
    const roles = await api('/api/v1/me/roles/').catch(() => null);
    if (!roles || !roles.ok) {
      refused = true;
      setState('refused', 'Something went wrong with embedded authentication.');
      return;
    }
    await load();
  };

  const frameMethods = {
    [names.frame.guestToken]: (args) => {
      if (!args || typeof args.guestToken !== 'string') return;
      token = args.guestToken;
      if (!rendered) {
        rendered = true;
        void start();
      } else if (refused) void load();
    },
    [names.frame.getScrollSize]: () => ({ width: body.scrollWidth, height: body.scrollHeight }),
    [names.frame.getDataMask]: () => dataMask,
    [names.frame.getActiveTabs]: () => [],
    [names.frame.getDashboardPermalink]: (args) => {
      const key = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
      const anchor = args && typeof args.anchor === 'string' && args.anchor ? '#' + encodeURIComponent(args.anchor) : '';
      return location.origin + '/superset/dashboard/p/' + key + '/' + anchor;
    },
  };

  const onPortMessage = async (event) => {
    const message = event.data;
    if (!message || typeof message !== 'object') return;
    const method = frameMethods[message.method];
    if (message.switchboardAction === 'emit') {
      if (typeof method === 'function') method(message.args);
      return;
    }
    if (message.switchboardAction !== 'get' || typeof message.messageId !== 'string') return;
    if (typeof method !== 'function') {
      port.postMessage({ switchboardAction: 'error', messageId: message.messageId, error: '[superset] Method "' + String(message.method) + '" is not defined' });
      return;
    }
    try {
      port.postMessage({ switchboardAction: 'reply', messageId: message.messageId, result: await method(message.args) });
    } catch (error) {
      port.postMessage({ switchboardAction: 'error', messageId: message.messageId, error: '[superset] Method "' + String(message.method) + '" threw an error' });
    }
  };

  region.addEventListener('change', () => {
    const id = 'NATIVE_FILTER-region';
    dataMask = region.value
      ? { [id]: { id, filterState: { value: [region.value] }, extraFormData: { filters: [{ col: 'region', op: 'IN', val: [region.value] }] }, ownState: {} } }
      : { [id]: { id, filterState: { value: null }, extraFormData: {}, ownState: {} } };
    if (port && has(names.ui.emitDataMasks)) {
      port.postMessage({ switchboardAction: 'emit', method: names.host.observeDataMask, args: { ...dataMask, crossFiltersChanged: false, nativeFiltersChanged: true } });
    }
    if (token) void load();
  });

  window.addEventListener('message', (event) => {
    const data = event.data;
    if (typeof data !== 'object' || data === null || data.type !== names.commsType) return;
    const next = event.ports && event.ports[0];
    if (data.handshake !== names.portTransfer || !next) return;
    if (port) port.close();
    port = next;
    port.onmessage = onPortMessage;
  });
})();
</script>
</body>
</html>`;
}
