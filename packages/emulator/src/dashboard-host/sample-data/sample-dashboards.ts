import type { DashboardChart, DashboardDetails, DashboardKpi, JsEventButton } from '../page/dashboard-data.js';
import { MAX_DETAIL_ROWS } from '../page/dashboard-data.js';

/** The content of one sample dashboard, before the group's name and variables are added. */
export interface SampleContent {
  kpis: DashboardKpi[];
  charts: DashboardChart[];
  details: DashboardDetails;
}

export interface SampleDashboard {
  title: string;
  /** The dashboard's JS Event Button, as its author configured it (packages/protocol/README.md, "Custom JS events"). */
  jsEventButton: JsEventButton;
  build(random: () => number): SampleContent;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const PRODUCTS = ['Starter plan', 'Team plan', 'Enterprise plan', 'Add-on: SSO', 'Add-on: Audit log', 'Support pack', 'Training day', 'API credits'];
const SUBJECTS = [
  'Cannot log in',
  'Export is slow',
  'Invoice question',
  'Feature request',
  'Data mismatch',
  'Password reset',
  'Webhook failing',
  'Permissions',
];
const STATUSES = ['Open', 'Pending', 'Solved', 'Closed', 'Escalated'];
const PRIORITIES = ['Low', 'Normal', 'High', 'Urgent'];
/** The regions of the multi-select (variable `regions`); each detail row is in one, by its index. */
export const REGIONS = ['EU', 'US', 'APAC'];
const regionFilter = (column: number) => ({ variable: 'regions', column, options: [...REGIONS] });

const between = (random: () => number, low: number, high: number) => Math.round(low + random() * (high - low));
const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const trend = (random: () => number) => Math.round((random() * 30 - 10) * 10) / 10;
const money = (value: number) => (value >= 1_000_000 ? `$${(value / 1_000_000).toFixed(2)}M` : value >= 1000 ? `$${(value / 1000).toFixed(1)}k` : `$${value}`);

function salesOverview(random: () => number): SampleContent {
  const base = between(random, 40_000, 180_000);
  const revenue = MONTHS.map((label, i) => ({ label, value: Math.round(base * (0.75 + 0.5 * Math.sin((i / 11) * Math.PI) + random() * 0.25)) }));
  const orders = MONTHS.map((label, i) => ({ label, value: Math.round((revenue[i]?.value ?? 0) / between(random, 180, 260)) }));
  const totalRevenue = revenue.reduce((sum, p) => sum + p.value, 0);
  const totalOrders = orders.reduce((sum, p) => sum + p.value, 0);
  const rows = Array.from({ length: MAX_DETAIL_ROWS }, (_, i) => {
    const units = between(random, 5, 900);
    return [`${pick(random, PRODUCTS)} #${i + 1}`, units, money(units * between(random, 40, 400)), REGIONS[i % REGIONS.length]!];
  });
  return {
    kpis: [
      { label: 'Revenue (12 months)', value: money(totalRevenue), trend: trend(random) },
      { label: 'Orders', value: totalOrders.toLocaleString('en-US'), trend: trend(random) },
      { label: 'Average order', value: money(Math.round(totalRevenue / Math.max(1, totalOrders))), trend: trend(random) },
    ],
    charts: [
      { id: 'revenue-by-month', kind: 'bar', title: 'Revenue by month', unit: 'USD', points: revenue },
      { id: 'orders-by-month', kind: 'line', title: 'Orders by month', unit: 'orders', points: orders },
    ],
    details: { title: 'Top products', columns: ['Product', 'Units', 'Revenue', 'Region'], rows, filter: regionFilter(3) },
  };
}

function supportMetrics(random: () => number): SampleContent {
  const byStatus = STATUSES.map((label) => ({ label, value: between(random, 5, 240) }));
  const response = Array.from({ length: 12 }, (_, i) => ({ label: `W${i + 1}`, value: Math.round((1.5 + random() * 6) * 10) / 10 }));
  const rows = Array.from({ length: MAX_DETAIL_ROWS }, (_, i) => [
    `#${10_000 + between(random, 0, 89_999) + i}`,
    pick(random, SUBJECTS),
    pick(random, PRIORITIES),
    pick(random, STATUSES),
    REGIONS[i % REGIONS.length]!,
  ]);
  const open = byStatus.find((s) => s.label === 'Open')?.value ?? 0;
  return {
    kpis: [
      { label: 'Open tickets', value: String(open), trend: trend(random) },
      { label: 'Satisfaction', value: `${between(random, 78, 99)}%`, trend: trend(random) },
      { label: 'Within SLA', value: `${between(random, 85, 100)}%`, trend: trend(random) },
    ],
    charts: [
      { id: 'tickets-by-status', kind: 'bar', title: 'Tickets by status', unit: 'tickets', points: byStatus },
      { id: 'median-first-response', kind: 'line', title: 'Median first response', unit: 'hours', points: response },
    ],
    details: { title: 'Recent tickets', columns: ['Ticket', 'Subject', 'Priority', 'Status', 'Region'], rows, filter: regionFilter(4) },
  };
}

/** The sample dashboards by id. */
export const SAMPLE_DASHBOARD_CONTENT: ReadonlyMap<string, SampleDashboard> = new Map([
  ['sales-overview', { title: 'Sales overview', jsEventButton: { text: 'Request export', eventName: 'exportRequested' }, build: salesOverview }],
  ['support-metrics', { title: 'Support metrics', jsEventButton: { text: 'Escalate', eventName: 'escalationRequested' }, build: supportMetrics }],
]);

/** The ids of the sample dashboards the emulator serves. */
export const SAMPLE_DASHBOARDS: readonly string[] = Object.freeze([...SAMPLE_DASHBOARD_CONTENT.keys()]);

/** The chart ids of each sample dashboard (a single-chart embed names one of its dashboard's). */
export const SAMPLE_CHARTS: ReadonlyMap<string, readonly string[]> = new Map([
  ['sales-overview', ['revenue-by-month', 'orders-by-month']],
  ['support-metrics', ['tickets-by-status', 'median-first-response']],
]);
