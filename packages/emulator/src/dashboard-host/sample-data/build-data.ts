import type { DashboardData } from '../page/dashboard-data.js';
import type { DashboardGroupView } from '../options.js';
import { SAMPLE_DASHBOARD_CONTENT } from './sample-dashboards.js';
import { hashSeed, seededRandom } from './seeded-random.js';
import { propertiesToVariables } from './variables.js';

/**
 * The data of `dashboardId` as `group` sees it: the same group always gets the same numbers,
 * another group gets others. `undefined` for an unknown dashboard.
 */
export function buildDashboardData(dashboardId: string, group: DashboardGroupView): DashboardData | undefined {
  const dashboard = SAMPLE_DASHBOARD_CONTENT.get(dashboardId);
  if (!dashboard) return undefined;
  const random = seededRandom(hashSeed(`${group.providedId}\u0000${dashboardId}`));
  return {
    dashboardId,
    title: dashboard.title,
    group: { name: group.name, providedId: group.providedId, environment: group.environment },
    jsEventButton: dashboard.jsEventButton,
    variables: propertiesToVariables(group.properties),
    ...dashboard.build(random),
  };
}

/**
 * What `dashboardId` looks like before any group's data: the same sections, titles, labels and
 * chart sizes as every group's, with no name, value or row of anyone's. The page renders it at
 * once, so it can say in `dashboardReadyToLoad` the height it will have, before the data arrives
 * (as the vendor's page does from the dashboard's layout). `undefined` for an unknown dashboard.
 */
export function dashboardLayout(dashboardId: string): DashboardData | undefined {
  const dashboard = SAMPLE_DASHBOARD_CONTENT.get(dashboardId);
  if (!dashboard) return undefined;
  const { kpis, charts, details } = dashboard.build(seededRandom(0));
  return {
    dashboardId,
    title: dashboard.title,
    group: { name: 'Loading…', providedId: '', environment: 'Customer' },
    jsEventButton: dashboard.jsEventButton,
    variables: {},
    kpis: kpis.map(({ label }) => ({ label, value: '—', trend: 0 })),
    charts: charts.map((chart) => ({ ...chart, points: chart.points.map(({ label }) => ({ label, value: 0 })) })),
    details: { ...details, rows: [] },
  };
}

/**
 * `data` for a single-chart embed token: that chart alone, no other chart, no KPIs, no variables
 * (the group's properties) and no detail rows, in what is served as much as in what is shown (a
 * single-chart token reads no more data). The group's name and provided id stay: the chart's
 * header shows the name, and its JS Event Button posts both.
 */
export const singleChart = (data: DashboardData, chartId: string): DashboardData => ({
  ...data,
  chart: chartId,
  variables: {},
  kpis: [],
  charts: data.charts.filter((chart) => chart.id === chartId),
  details: { ...data.details, rows: [] },
});
