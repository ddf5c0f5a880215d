export { EmbeddedDashboard } from './embedded-dashboard.js';
export type { EmbeddedDashboardProps, EmbeddedDashboardOptions } from './embedded-dashboard.js';
export type {
  EmbeddedDashboard as EmbeddedDashboardElement,
  DashboardLoadEvent,
  DashboardTokenEvent,
  DashboardErrorEvent,
  DashboardResizeEvent,
  DashboardVariableChangeEvent,
  DashboardCustomEvent,
  FetchToken,
} from '@embedded-dashboard/element';
export type { DashboardVariables } from '@embedded-dashboard/protocol';
