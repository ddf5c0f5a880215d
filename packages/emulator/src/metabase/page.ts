import {
  METABASE_EMBED_API,
  METABASE_EMBED_PATHS,
  METABASE_LOCATION_FIELDS,
  METABASE_MAX_REFRESH_SECONDS,
  MetabaseFrameMessageType,
  type MetabaseResourceKind,
} from '@embedded-dashboard/protocol';

/**
 * The Metabase mode's frame page, `/embed/dashboard/<jwt>` and `/embed/question/<jwt>`: the same
 * document for every token, as Metabase serves its single-page app there, whose script does what
 * the real frame does that a host can see. It reads the hash options (`bordered`, `titled`,
 * `theme`, `background`, `refresh`, `hide_parameters`, `font`, `downloads`, `hide_download_button`,
 * `locale`), loads the item with its token from `/api/embed/...` (a refusal is the error page, with
 * Metabase's sentence), shows the editable parameters' widgets (their starting values from the
 * query string; a change rewrites the query string, as Metabase does, and reloads the cards), every
 * card's rows, and posts `{ metabase: { type: "location", location } }` and
 * `{ metabase: { type: "frame", frame: { mode: "normal", height } } }` to `window.parent` with
 * target `"*"` whenever they change (polled every 100 ms, as `frontend/src/metabase/lib/embed.js`).
 * `document.body.dataset.state` says loading, loaded or error; `dataset.loads` counts the data loads
 * (the refresh cadence).
 */

const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

export function pageNonce(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(18))).toString('base64url');
}

export function framePage(kind: MetabaseResourceKind, nonce: string): string {
  const config = {
    kind,
    pagePath: METABASE_EMBED_PATHS[kind],
    api: METABASE_EMBED_API[kind],
    locationFields: METABASE_LOCATION_FIELDS,
    maxRefresh: METABASE_MAX_REFRESH_SECONDS,
    types: MetabaseFrameMessageType,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Metabase</title>
<style nonce="${nonce}">
html, body { margin: 0; font: 14px/1.4 Lato, system-ui, sans-serif; color: #4c5773; background: #fff; }
html[data-embed-theme="night"], html[data-embed-theme="night"] body { color: #fff; background: #2e353b; }
html[data-embed-theme="transparent"], html[data-embed-theme="transparent"] body, html[data-background="false"], html[data-background="false"] body { background: transparent; }
#frame { padding: 12px 16px; }
#frame[data-bordered="true"] { border: 1px solid #dcdfe0; border-radius: 8px; }
h1 { font-size: 20px; margin: 0 0 8px; }
[hidden] { display: none !important; }
.parameters { display: flex; gap: 8px; margin: 0 0 12px; }
.card { border: 1px solid #eee; border-radius: 6px; padding: 8px; margin: 0 0 12px; }
.card h2 { font-size: 15px; margin: 0 0 6px; }
.card .error { color: #ed6e6e; }
table { border-collapse: collapse; width: 100%; }
td, th { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eee; }
.scalar { font-size: 28px; font-weight: 700; }
footer { font-size: 12px; opacity: 0.7; }
</style>
</head>
<body data-state="loading" data-loads="0">
<main id="frame" aria-busy="true">
<h1 id="title" hidden></h1>
<div class="parameters" id="parameters"></div>
<div id="cards"><p id="message">Loading…</p></div>
<footer id="footer"><button type="button" id="download" hidden>Download</button> <span>Powered by Metabase</span></footer>
</main>
<script type="application/json" id="embed-config" nonce="${nonce}">${scriptJson(config)}</script>
<script nonce="${nonce}">
(() => {
  'use strict';
  const config = JSON.parse(document.getElementById('embed-config').textContent);
  const root = document.documentElement;
  const body = document.body;
  const frame = document.getElementById('frame');
  const titleEl = document.getElementById('title');
  const parametersEl = document.getElementById('parameters');
  const cardsEl = document.getElementById('cards');
  const download = document.getElementById('download');
  const token = decodeURIComponent(location.pathname.slice(config.pagePath.length));
  const slug = /^[a-z0-9][a-z0-9_]{0,99}$/;

  const hash = {};
  for (const part of location.hash.replace(/^#/, '').split('&')) {
    if (!part) continue;
    const eq = part.indexOf('=');
    try {
      hash[decodeURIComponent(eq === -1 ? part : part.slice(0, eq))] = eq === -1 ? 'true' : decodeURIComponent(part.slice(eq + 1));
    } catch {}
  }
  const flag = (name, fallback) => (hash[name] === 'true' ? true : hash[name] === 'false' ? false : fallback);
  const bordered = flag('bordered', true);
  const titled = flag('titled', true);
  const background = flag('background', true);
  const theme = ['light', 'night', 'transparent'].includes(hash.theme) ? hash.theme : 'light';
  const hidden = new Set((hash.hide_parameters || '').split(',').filter((s) => slug.test(s)));
  const locale = /^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8}){0,2}$/.test(hash.locale || '') ? hash.locale.replace(/_/g, '-') : 'en';
  const refresh = config.kind === 'dashboard' && /^\\d{1,6}$/.test(hash.refresh || '') && Number(hash.refresh) >= 1 && Number(hash.refresh) <= config.maxRefresh ? Number(hash.refresh) : 0;
  const downloads = config.kind === 'question' && flag('hide_download_button', false) ? false : hash.downloads === 'false' ? false : true;
  root.dataset.embedTheme = theme;
  root.dataset.background = String(background);
  root.lang = locale;
  frame.dataset.bordered = String(bordered);
  if (refresh) frame.dataset.refresh = String(refresh);
  if (/^[A-Za-z0-9][A-Za-z0-9 -]{0,63}$/.test(hash.font || '')) body.style.fontFamily = JSON.stringify(hash.font) + ', sans-serif';
  download.hidden = !downloads;
  const numbers = (() => { try { return new Intl.NumberFormat(locale); } catch { return new Intl.NumberFormat('en'); } })();

  const setState = (state) => {
    body.dataset.state = state;
    frame.setAttribute('aria-busy', state === 'loading' ? 'true' : 'false');
  };
  const api = (path) => fetch(config.api + encodeURIComponent(token) + path, { credentials: 'omit', headers: { Accept: 'application/json' } });

  const errorPage = (status, message) => {
    setState('error');
    body.dataset.error = message;
    const heading = document.createElement('h1');
    heading.id = 'error-title';
    heading.textContent = status === 404 ? 'Not found' : 'An error occurred';
    const detail = document.createElement('p');
    detail.id = 'error-message';
    detail.textContent = message;
    frame.replaceChildren(heading, detail);
  };

  // The page's parameter values: the query string's, for every slug in it (a value for a locked or
  // disabled parameter goes to the API, which refuses it as Metabase does).
  const pageValues = () => {
    const values = {};
    const search = new URLSearchParams(location.search);
    for (const key of new Set(search.keys())) {
      if (!slug.test(key)) continue;
      const all = search.getAll(key);
      values[key] = all.length === 1 ? all[0] : all;
    }
    return values;
  };

  let item = null;
  let loads = 0;
  const renderCard = (card, answer) => {
    const section = document.createElement('section');
    section.className = 'card';
    section.dataset.cardId = String(card.id);
    const heading = document.createElement('h2');
    heading.textContent = card.name;
    section.append(heading);
    if (answer.error) {
      const p = document.createElement('p');
      p.className = 'error';
      p.textContent = 'There was a problem displaying this chart.';
      section.dataset.error = answer.error;
      section.append(p);
      return section;
    }
    const rows = answer.data.data.rows;
    if (card.display === 'scalar') {
      const value = document.createElement('p');
      value.className = 'scalar';
      value.dataset.value = String(rows[0][0]);
      value.textContent = numbers.format(rows[0][0]);
      section.append(value);
      return section;
    }
    const table = document.createElement('table');
    const head = table.createTHead().insertRow();
    for (const col of answer.data.data.cols) head.append(Object.assign(document.createElement('th'), { textContent: col.display_name }));
    const tbody = table.createTBody();
    for (const row of rows) {
      const tr = tbody.insertRow();
      tr.dataset.customer = String(row[0]);
      row.forEach((cell, index) => {
        tr.insertCell().textContent = typeof cell === 'number' && index === row.length - 1 ? numbers.format(cell) : String(cell);
      });
    }
    section.append(table);
    return section;
  };

  const loadCards = async () => {
    const mine = ++loads;
    body.dataset.loads = String(loads);
    const values = pageValues();
    const query = Object.keys(values).length ? '?parameters=' + encodeURIComponent(JSON.stringify(values)) : '';
    const cards = config.kind === 'dashboard' ? item.dashcards.map((d) => ({ ...d.card, path: '/dashcard/' + d.id + '/card/' + d.card_id })) : [{ id: item.id, name: item.name, display: item.display, path: '/query' }];
    const sections = [];
    let failed = false;
    for (const card of cards) {
      let answer;
      try {
        const response = await api(card.path + query);
        answer = response.ok ? { data: await response.json() } : { error: await response.text() };
      } catch {
        answer = { error: 'network error' };
      }
      if (mine !== loads) return;
      if (answer.error) failed = true;
      sections.push(renderCard(card, answer));
    }
    cardsEl.replaceChildren(...sections);
    body.dataset.cardErrors = failed ? 'true' : 'false';
    setState('loaded');
  };

  const renderParameters = () => {
    const search = new URLSearchParams(location.search);
    const widgets = item.parameters.filter((p) => !hidden.has(p.slug)).map((p) => {
      const label = document.createElement('label');
      label.textContent = p.name + ' ';
      const input = document.createElement('input');
      input.name = p.slug;
      input.value = search.get(p.slug) || '';
      input.addEventListener('change', () => {
        const next = new URLSearchParams(location.search);
        if (input.value) next.set(p.slug, input.value);
        else next.delete(p.slug);
        const text = next.toString();
        history.replaceState(null, '', location.pathname + (text ? '?' + text : '') + location.hash);
        void loadCards();
      });
      label.append(input);
      return label;
    });
    parametersEl.replaceChildren(...widgets);
    parametersEl.hidden = widgets.length === 0;
  };

  const start = async () => {
    let response;
    try {
      response = await api('');
    } catch {
      errorPage(0, 'network error');
      return;
    }
    if (!response.ok) {
      errorPage(response.status, await response.text());
      return;
    }
    item = await response.json();
    titleEl.textContent = item.name;
    titleEl.hidden = !titled;
    document.title = item.name;
    renderParameters();
    await loadCards();
    if (refresh) setInterval(() => void loadCards(), refresh * 1000);
  };

  // As Metabase: only in a frame, to the parent, target "*", whenever the URL or the size changes.
  if (window.parent !== window) {
    let lastHref = null;
    let lastFrame = null;
    setInterval(() => {
      if (location.href !== lastHref) {
        lastHref = location.href;
        const picked = {};
        for (const field of config.locationFields) if (typeof location[field] === 'string') picked[field] = location[field];
        window.parent.postMessage({ metabase: { type: config.types.location, location: picked } }, '*');
      }
      const spec = { mode: 'normal', height: document.body.scrollHeight };
      if (!lastFrame || lastFrame.mode !== spec.mode || lastFrame.height !== spec.height) {
        lastFrame = spec;
        window.parent.postMessage({ metabase: { type: config.types.frame, frame: spec } }, '*');
      }
    }, 100);
  }
  void start();
})();
</script>
</body>
</html>`;
}
