import type { DashboardVariables, Environment } from '@embedded-dashboard/protocol';

/**
 * The body of `GET /iframe-data/:dashboardId`: everything the page renders, already formatted,
 * so the page script stays a small generic renderer. Nothing in it is the token.
 */
export interface DashboardData {
  dashboardId: string;
  title: string;
  /** `providedId` is the customer's own id (the JS Event Button's `customerProvidedId`). */
  group: { name: string; providedId: string; environment: Environment };
  jsEventButton: JsEventButton;
  /** The group's properties as dashboard variables (non-scalar values arrive as JSON text). */
  variables: DashboardVariables;
  kpis: DashboardKpi[];
  charts: DashboardChart[];
  details: DashboardDetails;
  /** Set for a single-chart embed token: the page shows that chart alone. */
  chart?: string;
}

/**
 * A JS Event Button: its text, and the event it posts to the host page (named by the dashboard's
 * author) with `{ customerName, customerProvidedId }`.
 */
export interface JsEventButton {
  text: string;
  eventName: string;
}

export interface DashboardKpi {
  label: string;
  value: string;
  /** Change against the previous period, in percent. */
  trend: number;
}

export interface ChartPoint {
  label: string;
  value: number;
}

export interface DashboardChart {
  /** The chart's id: what a single-chart embed token (`generate_jwt`'s `chart_id`) names. */
  id: string;
  kind: 'bar' | 'line';
  title: string;
  unit: string;
  points: ChartPoint[];
}

export interface DashboardDetails {
  title: string;
  columns: string[];
  /**
   * The multi-select over the rows: the variable it sets (an array of the chosen `options`) and
   * the column it filters on. The variable absent means every option.
   */
  filter: { variable: string; column: number; options: string[] };
  /** Always `MAX_DETAIL_ROWS` rows; the page shows as many as the `rows` variable asks. */
  rows: Array<Array<string | number>>;
}

/** How many detail rows the data route sends and the page can show. */
export const MAX_DETAIL_ROWS = 50;
/** Detail rows shown when the `rows` variable is absent or not a number. */
export const DEFAULT_DETAIL_ROWS = 8;
