import type { DashboardVariables, VariableValue } from '@embedded-dashboard/protocol';
import type { DashboardData } from './dashboard-data.js';

/** What the renderer needs beyond the data: current variables, UI state and callbacks. */
export interface RenderView {
  variables: DashboardVariables;
  /** The `locale_code` the page was given (canonical), for `Intl`; `undefined`: the browser's. */
  locale: string | undefined;
  /** When the data last arrived (ms since the epoch). */
  refreshedAt: number | undefined;
  detailsOpen: boolean;
  detailRows: number;
  onToggleDetails(): void;
  /** The JS Event Button was pressed. */
  onJsEvent(): void;
  onVariableChange(name: string, value: VariableValue): void;
}

/**
 * Replaces the content of `root` with the dashboard, in one synchronous step so the frame
 * never paints blank in between. Every piece of data goes in through `textContent`,
 * `value` or numeric SVG attributes, never as markup: group names and properties are
 * attacker-controlled. Inlined into the page as source text, so it is self-contained.
 */
export function renderDashboard(root: HTMLElement, data: DashboardData, view: RenderView): void {
  const doc = root.ownerDocument;
  const SVG = 'http://www.w3.org/2000/svg';
  const el = (tag: string, className?: string, text?: string): HTMLElement => {
    const node = doc.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  const svg = (tag: string, attributes: Record<string, string | number>, className?: string): SVGElement => {
    const node = doc.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    if (className) node.setAttribute('class', className);
    return node;
  };
  // Numbers and dates in the page's locale (`locale_code`), through Intl.
  const number = new Intl.NumberFormat(view.locale);
  const compact = new Intl.NumberFormat(view.locale, { notation: 'compact', maximumFractionDigits: 1 });
  const formatValue = (value: number): string => compact.format(value);

  const header = el('header', 'header');
  const titles = el('div', 'titles');
  titles.append(el('p', 'eyebrow', data.title));
  const name = el('h1', 'group-name', data.group.name);
  name.dataset.testid = 'group-name';
  titles.append(name);
  const environment = el('span', 'env-tag', data.group.environment);
  environment.dataset.testid = 'environment';
  environment.dataset.environment = data.group.environment;
  const jsEvent = el('button', 'toggle', data.jsEventButton.text);
  jsEvent.setAttribute('type', 'button');
  jsEvent.dataset.testid = 'js-event-button';
  jsEvent.addEventListener('click', () => view.onJsEvent());
  header.append(titles, jsEvent, environment);
  const refreshed = el('p', 'refreshed');
  refreshed.dataset.testid = 'last-refreshed';
  if (view.refreshedAt !== undefined) {
    const at = new Date(view.refreshedAt);
    const time = el('time', undefined, new Intl.DateTimeFormat(view.locale, { dateStyle: 'medium', timeStyle: 'medium' }).format(at));
    time.setAttribute('datetime', at.toISOString());
    refreshed.append('Last refreshed ', time);
  }
  if (view.locale) refreshed.lang = view.locale;
  titles.append(refreshed);

  const variables = el('section', 'variables');
  variables.dataset.testid = 'variables';
  variables.setAttribute('aria-label', 'Dashboard variables');
  const chips = el('ul', 'chips');
  const names = Object.keys(view.variables);
  if (names.length === 0) chips.append(el('li', 'chip empty', 'No variables'));
  for (const varName of names) {
    const current = view.variables[varName] ?? null;
    const chip = el('li', 'chip');
    chip.dataset.var = varName;
    const label = el('label');
    const input = doc.createElement('input');
    input.className = 'chip-input';
    input.dataset.testid = 'variable-input';
    input.name = varName;
    // An array or object (a multi-select's, a date range's) is shown as its JSON, edited by its own control.
    const structured = typeof current === 'object' && current !== null;
    input.readOnly = structured;
    input.value = current === null ? '' : structured ? JSON.stringify(current) : String(current);
    input.size = Math.max(4, Math.min(24, input.value.length + 1));
    input.addEventListener('change', () => {
      if (structured) return;
      const text = input.value;
      let next: VariableValue = text;
      if (typeof current === 'number' && text.trim() !== '' && Number.isFinite(Number(text))) next = Number(text);
      else if (typeof current === 'boolean' && (text === 'true' || text === 'false')) next = text === 'true';
      else if (current === null && text === '') next = null;
      view.onVariableChange(varName, next);
    });
    label.append(el('span', 'chip-name', varName), input);
    chip.append(label);
    chips.append(chip);
  }
  variables.append(chips);

  // The multi-select over the detail rows: it sets (and reports) an array; absent means all options.
  const filter = data.details.filter;
  const asked = view.variables[filter.variable];
  const chosen = Array.isArray(asked) ? filter.options.filter((option) => asked.includes(option)) : filter.options;
  const rows = data.details.rows.filter((row) => chosen.includes(String(row[filter.column])));
  const picker = el('label', 'multi-select');
  const select = doc.createElement('select');
  select.multiple = true;
  select.name = filter.variable;
  select.size = filter.options.length;
  select.dataset.testid = 'multi-select';
  for (const value of filter.options) {
    const option = doc.createElement('option');
    option.value = option.textContent = value;
    option.selected = chosen.includes(value);
    select.append(option);
  }
  select.addEventListener('change', () =>
    view.onVariableChange(
      filter.variable,
      [...select.options].filter((o) => o.selected).map((o) => o.value),
    ),
  );
  const summary = el('span', 'filter-summary', `${number.format(rows.length)} / ${number.format(data.details.rows.length)} rows`);
  summary.dataset.testid = 'filter-summary';
  summary.dataset.chosen = chosen.join(',');
  summary.dataset.rows = String(rows.length);
  picker.append(el('span', 'chip-name', filter.variable), select, summary);
  variables.append(picker);

  const kpis = el('section', 'kpis');
  for (const kpi of data.kpis) {
    const card = el('div', 'kpi');
    const trend = el('span', kpi.trend >= 0 ? 'trend up' : 'trend down', `${kpi.trend >= 0 ? '▲' : '▼'} ${Math.abs(kpi.trend).toFixed(1)}%`);
    card.append(el('span', 'kpi-label', kpi.label), el('span', 'kpi-value', kpi.value), trend);
    kpis.append(card);
  }

  const charts = el('section', 'charts');
  for (const chart of data.charts) {
    const figure = el('figure', 'chart');
    figure.dataset.chart = chart.kind;
    figure.append(el('figcaption', 'chart-title', chart.unit ? `${chart.title} (${chart.unit})` : chart.title));
    const width = 480;
    const height = 200;
    const pad = { top: 12, right: 12, bottom: 28, left: 44 };
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    const max = Math.max(1, ...chart.points.map((p) => p.value)) * 1.1;
    const y = (value: number) => pad.top + plotH - (value / max) * plotH;
    const image = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': chart.title }, 'chart-svg');
    for (let i = 0; i <= 4; i += 1) {
      const value = (max / 4) * i;
      image.append(svg('line', { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value) }, 'grid'));
      const tick = svg('text', { x: pad.left - 6, y: y(value) + 4, 'text-anchor': 'end' }, 'tick');
      tick.textContent = formatValue(value);
      image.append(tick);
    }
    const step = plotW / Math.max(1, chart.points.length);
    const centre = (i: number) => pad.left + step * i + step / 2;
    chart.points.forEach((point, i) => {
      const label = svg('text', { x: centre(i), y: height - 8, 'text-anchor': 'middle' }, 'tick');
      label.textContent = point.label;
      image.append(label);
    });
    if (chart.kind === 'bar') {
      chart.points.forEach((point, i) => {
        const barW = step * 0.62;
        const bar = svg(
          'rect',
          { x: centre(i) - barW / 2, y: y(point.value), width: barW, height: Math.max(0, pad.top + plotH - y(point.value)), rx: 3 },
          'bar',
        );
        const tip = svg('title', {});
        tip.textContent = `${point.label}: ${number.format(point.value)}`;
        bar.append(tip);
        image.append(bar);
      });
    } else {
      const coords = chart.points.map((point, i) => `${centre(i).toFixed(1)},${y(point.value).toFixed(1)}`);
      const baseline = (pad.top + plotH).toFixed(1);
      if (coords.length > 0) {
        image.append(
          svg('polygon', { points: `${centre(0).toFixed(1)},${baseline} ${coords.join(' ')} ${centre(coords.length - 1).toFixed(1)},${baseline}` }, 'area'),
        );
      }
      image.append(svg('polyline', { points: coords.join(' ') }, 'line'));
      chart.points.forEach((point, i) => {
        const dot = svg('circle', { cx: centre(i), cy: y(point.value), r: 3 }, 'dot');
        const tip = svg('title', {});
        tip.textContent = `${point.label}: ${number.format(point.value)}`;
        dot.append(tip);
        image.append(dot);
      });
    }
    figure.append(image);
    charts.append(figure);
  }

  const details = el('section', 'details');
  const toggle = el('button', 'toggle', view.detailsOpen ? 'Hide details' : 'Show details');
  toggle.setAttribute('type', 'button');
  toggle.dataset.testid = 'toggle-details';
  toggle.setAttribute('aria-expanded', String(view.detailsOpen));
  toggle.setAttribute('aria-controls', 'details-panel');
  toggle.addEventListener('click', () => view.onToggleDetails());
  const panel = el('div', 'details-panel');
  panel.id = 'details-panel';
  panel.dataset.testid = 'details-panel';
  panel.hidden = !view.detailsOpen;
  if (view.detailsOpen) {
    panel.append(el('h2', 'details-title', data.details.title));
    const table = el('table', 'table');
    const head = el('tr');
    for (const column of data.details.columns) head.append(el('th', undefined, column));
    const thead = el('thead');
    thead.append(head);
    const tbody = el('tbody');
    for (const row of rows.slice(0, view.detailRows)) {
      const tr = el('tr');
      for (const cell of row) tr.append(el('td', typeof cell === 'number' ? 'num' : undefined, typeof cell === 'number' ? number.format(cell) : String(cell)));
      tbody.append(tr);
    }
    table.append(thead, tbody);
    panel.append(table);
  }
  details.append(toggle, panel);

  if (data.chart !== undefined) root.replaceChildren(header, charts);
  else root.replaceChildren(header, variables, kpis, charts, details);
}
