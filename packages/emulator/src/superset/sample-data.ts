import { SALES_ROWS } from '../sample-data/sales.js';
import type { Row } from './sql-clause.js';

/**
 * The Superset mode's sample data: one dataset (`sales`) of a few customers' rows, two charts
 * over it and two embedded dashboards, the same shape as the real test Superset's
 * (test/support/superset/provision.py), so one conformance suite runs against both.
 */

export interface SupersetSampleChart {
  id: number;
  name: string;
  /** The saved query: a guest may not ask for other columns or metrics (superset/security/manager.py, `query_context_modified`). */
  columns: readonly string[];
  metrics: readonly string[];
}

export interface SupersetSampleDashboard {
  id: number;
  slug: string;
  title: string;
  /** The embedded config's UUID (lower case). */
  uuid: string;
  /** The embedded config's allowed domains: origins a Referer must be same-origin with; `[]` is any. */
  allowedDomains: readonly string[];
  chartIds: readonly number[];
}

export const SAMPLE_DATASET = { id: 1, table: 'sales', columns: ['customer_id', 'region', 'product', 'amount'] as const };

export const SAMPLE_ROWS: readonly Row[] = SALES_ROWS;

export const SAMPLE_CHARTS: readonly SupersetSampleChart[] = [
  { id: 1, name: 'Sales rows', columns: SAMPLE_DATASET.columns, metrics: [] },
  { id: 2, name: 'Total by customer', columns: ['customer_id'], metrics: ['total_amount'] },
];

/** The saved metrics of the dataset. */
export const SAMPLE_METRICS: Readonly<Record<string, (rows: readonly Row[]) => number>> = {
  total_amount: (rows) => rows.reduce((sum, row) => sum + Number(row.amount), 0),
  count: (rows) => rows.length,
};

export const SAMPLE_SUPERSET_DASHBOARDS: readonly SupersetSampleDashboard[] = [
  { id: 1, slug: 'sales', title: 'Sales', uuid: '5b3c1a52-4f0e-4d8e-9c57-0d6f1c2a7e01', allowedDomains: [], chartIds: [1, 2] },
  {
    id: 2,
    slug: 'sales-restricted',
    title: 'Sales (restricted)',
    uuid: '5b3c1a52-4f0e-4d8e-9c57-0d6f1c2a7e02',
    allowedDomains: ['http://allowed.invalid'],
    chartIds: [1, 2],
  },
];
