import '@embedded-dashboard/element';
import '@embedded-dashboard/element/explo';
import '@embedded-dashboard/element/timings';
import type { EmbeddedDashboard, EmbeddedDashboardEventMap } from '@embedded-dashboard/element';
import { EXPLO_JWT_IFRAME_PATH } from '@embedded-dashboard/protocol';
import { DEMO_DASHBOARDS } from '../../shared/dashboards.js';
import { demoApi, SignedOutError } from './api.js';
import { createEventLog } from './event-log.js';
import { showVendorStatus, tokenCountdown, watchState } from './status-panel.js';
import { bindLocaleSwitch, bindVariablesForm } from './variables-form.js';

const ELEMENT_EVENTS: (keyof EmbeddedDashboardEventMap)[] = [
  'dashboard-load',
  'dashboard-token',
  'dashboard-error',
  'dashboard-resize',
  'dashboard-variable-change',
  'dashboard-custom-event',
];
const VENDOR_STATUS_POLL_MS = 3000;

type DemoProtocol = 'message' | 'explo' | 'explo-jwt';
const PROTOCOL_LABELS: Record<DemoProtocol, string> = {
  message: 'message (token by postMessage)',
  explo: 'explo (the vendor’s embed: customer token in the URL)',
  'explo-jwt': 'explo-jwt (the vendor’s embed tokens: renewed in the running frame)',
};
/** The switch link cycles through the three. */
const NEXT_PROTOCOL: Record<DemoProtocol, DemoProtocol> = { message: 'explo', explo: 'explo-jwt', 'explo-jwt': 'message' };

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

/** One button of a picker (a `role="tablist"`): selected when `selected`, `pick` on click. */
function pickerButton(title: string, testid: string, selected: boolean, pick: () => void): HTMLButtonElement {
  const button = document.createElement('button');
  button.type = 'button';
  button.role = 'tab';
  button.textContent = title;
  button.dataset.testid = testid;
  button.setAttribute('aria-selected', String(selected));
  button.addEventListener('click', () => {
    for (const other of button.parentElement?.children ?? []) other.setAttribute('aria-selected', String(other === button));
    pick();
  });
  return button;
}

/** Puts `name=value` (or no `name` when `value` is undefined) in the page URL, without a reload. */
function rememberInUrl(name: string, value: string | undefined): void {
  const url = new URL(location.href);
  if (value === undefined) url.searchParams.delete(name);
  else url.searchParams.set(name, value);
  history.replaceState(null, '', url);
}

type DemoDashboard = (typeof DEMO_DASHBOARDS)[number];

/**
 * `?protocol=explo-jwt`'s chart picker: the whole dashboard (tokens from the BFF that mints them,
 * `embedTokenUrl`) or one of its charts (`chart`, tokens the vendor mints, `chartTokenUrl`).
 * Returns what the dashboard picker calls when the dashboard changes: one chart stays one chart,
 * the new dashboard's first.
 */
function chartPicker(element: EmbeddedDashboard, urls: { whole: string; chart: string }, initial: DemoDashboard, chart: string | undefined) {
  const picker = byId<HTMLDivElement>('chart-picker');
  const show = (dashboard: DemoDashboard, chosen: string | undefined) => {
    if (chosen === undefined) element.removeAttribute('chart');
    else element.setAttribute('chart', chosen);
    element.setAttribute('token-url', chosen === undefined ? urls.whole : urls.chart);
    rememberInUrl('chart', chosen);
    picker.replaceChildren(
      pickerButton('Whole dashboard', 'pick-chart-none', chosen === undefined, () => show(dashboard, undefined)),
      ...dashboard.charts.map((c) => pickerButton(c.title, `pick-chart-${c.id}`, c.id === chosen, () => show(dashboard, c.id))),
    );
  };
  picker.hidden = false;
  show(initial, chart);
  return (dashboard: DemoDashboard) => show(dashboard, element.hasAttribute('chart') ? dashboard.charts[0].id : undefined);
}

function dashboardPicker(element: EmbeddedDashboard, initial: string, picked?: (dashboard: DemoDashboard) => void): void {
  byId<HTMLDivElement>('dashboard-picker').replaceChildren(
    ...DEMO_DASHBOARDS.map((dashboard) =>
      pickerButton(dashboard.title, `pick-${dashboard.id}`, dashboard.id === initial, () => {
        element.setAttribute('dashboard', dashboard.id);
        rememberInUrl('dashboard', dashboard.id);
        picked?.(dashboard);
      }),
    ),
  );
}

async function main(): Promise<void> {
  let session;
  try {
    session = await demoApi.session();
  } catch (error) {
    if (error instanceof SignedOutError) location.assign('/');
    throw error;
  }
  const { customer } = session;
  byId('customer-name').textContent = customer.name;
  byId('user-name').textContent = customer.user.name;
  byId('vendor-origin').textContent = new URL(session.srcTemplate.replace('{dashboard}', 'x')).origin;
  document.title = `${customer.name} · Northwind Analytics`;

  const log = createEventLog(byId<HTMLOListElement>('event-log'));
  byId('clear-log').addEventListener('click', () => log.clear());
  const tokenLine = tokenCountdown();

  const query = new URLSearchParams(location.search);
  const shown = DEMO_DASHBOARDS.find((d) => d.id === query.get('dashboard')) ?? DEMO_DASHBOARDS[0];
  const dashboard = shown.id;

  // ?protocol=explo: the vendor's documented embed (token in the URL, swapped in a hidden frame on
  // rotation) on the emulator's /iframe/{dashboard}/{token}/{environment}; ?protocol=explo-jwt: the
  // vendor's embed tokens (minted by the BFF at /embed-jwt, the first in the URL
  // /iframe/{token}/{environment}, later ones posted to the running frame; with ?chart=<id>, one chart
  // alone, its tokens minted by the vendor through the BFF at /embed-chart); otherwise our own protocol.
  const askedProtocol = query.get('protocol');
  const protocol: DemoProtocol = askedProtocol === 'explo' || (askedProtocol === 'explo-jwt' && session.embedTokenUrl !== null) ? askedProtocol : 'message';
  byId('frame-protocol').textContent = PROTOCOL_LABELS[protocol];
  byId<HTMLAnchorElement>('other-protocol').href = `?protocol=${NEXT_PROTOCOL[protocol]}`;
  const element = document.createElement('embedded-dashboard');
  element.setAttribute('dashboard', dashboard);
  if (protocol !== 'message') {
    element.setAttribute('protocol', protocol);
    element.setAttribute('environment', 'production');
  }
  const vendorBase = session.srcTemplate.slice(0, session.srcTemplate.indexOf('/iframe/{dashboard}'));
  element.setAttribute(
    'src-template',
    protocol === 'explo'
      ? `${vendorBase}/iframe/{dashboard}/{token}/{environment}`
      : protocol === 'explo-jwt'
        ? vendorBase + EXPLO_JWT_IFRAME_PATH
        : session.srcTemplate,
  );
  element.setAttribute('token-url', protocol === 'explo-jwt' ? session.embedTokenUrl! : session.tokenUrl);
  // The chart as asked, even one the dashboard does not have: the element shows what the vendor says.
  const chartTokenUrl = protocol === 'explo-jwt' ? session.chartTokenUrl : null;
  const dashboardChanged =
    chartTokenUrl === null ? undefined : chartPicker(element, { whole: session.embedTokenUrl!, chart: chartTokenUrl }, shown, query.get('chart') ?? undefined);
  element.setAttribute('label', `${customer.name} analytics`);
  // Each load and renewal's timings go to the BFF (the status panel shows what it received).
  element.setAttribute('report-timings', '');
  if (session.refreshMarginSeconds !== null) element.setAttribute('refresh-margin', String(session.refreshMarginSeconds));
  const refreshVendorStatus = () =>
    demoApi.vendorStatus().then(showVendorStatus, (error: unknown) => {
      if (error instanceof SignedOutError) byId('vendor-stats').textContent = 'signed out';
    });
  for (const name of ELEMENT_EVENTS) {
    element.addEventListener(name, (event) => {
      // The dashboard's own events (its JS Event Button's, analyticsEventFired) under their own names.
      if (name === 'dashboard-custom-event') {
        const { detail } = event as EmbeddedDashboardEventMap['dashboard-custom-event'];
        log.add(name, `${name}: ${detail.name}`, detail.detail);
      } else log.add(name, name, event.detail);
      if (name === 'dashboard-token') tokenLine.issued((event as EmbeddedDashboardEventMap['dashboard-token']).detail.expiresAt);
      // A token answer or failure is when the vendor's counters move: show them now, not at the next poll.
      if (name === 'dashboard-token' || name === 'dashboard-error') void refreshVendorStatus();
    });
  }
  watchState(element, (state) => {
    tokenLine.state(state);
    log.add('demo', `state → ${state}`);
  });
  bindVariablesForm(element);
  bindLocaleSwitch(element);
  dashboardPicker(element, dashboard, dashboardChanged);
  byId('dashboard-slot').append(element);

  void refreshVendorStatus();
  setInterval(() => {
    if (document.visibilityState === 'visible') void refreshVendorStatus();
  }, VENDOR_STATUS_POLL_MS);

  const expire = byId<HTMLButtonElement>('expire-token');
  const outage = byId<HTMLButtonElement>('toggle-outage');
  const result = byId<HTMLElement>('action-result');
  const act = async (button: HTMLButtonElement, work: () => Promise<string>) => {
    button.disabled = true;
    try {
      const message = await work();
      result.textContent = message;
      log.add('demo', message);
    } catch (error) {
      result.textContent = error instanceof SignedOutError ? 'Your session has ended: sign in again.' : 'That did not work; see the console.';
      if (!(error instanceof SignedOutError)) console.error(error);
    } finally {
      button.disabled = false;
      void refreshVendorStatus();
    }
  };
  const EXPIRE_MESSAGES = {
    expired: 'The vendor now refuses the token. Watch the dashboard report tokenExpired and the element rotate it.',
    'already-refused': 'The vendor refuses the current token already; the element is getting a new one.',
    'no-token': 'No token to expire yet: wait for the dashboard to load.',
  } as const;
  expire.addEventListener('click', () => void act(expire, async () => EXPIRE_MESSAGES[(await demoApi.expireToken()).outcome]));
  outage.addEventListener(
    'click',
    () =>
      void act(outage, async () => {
        const status = await demoApi.setOutage(outage.getAttribute('aria-pressed') !== 'true');
        showVendorStatus(status);
        return status.outage
          ? 'Vendor outage on: its API answers 503. Expire the token to watch the element retry with backoff.'
          : 'Vendor outage over: the element recovers on its next retry.';
      }),
  );
}

void main();
