export { dashboardHostRoutes } from './routes.js';
export { SAMPLE_DASHBOARDS } from './sample-data/sample-dashboards.js';
export type { DashboardGroupView, DashboardHostOptions, EmbedTokenView } from './options.js';
export type { DashboardData, DashboardKpi, DashboardChart, ChartPoint, DashboardDetails } from './page/dashboard-data.js';
