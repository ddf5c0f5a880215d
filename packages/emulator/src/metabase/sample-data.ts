import { MetabaseParameterKind, type MetabaseParameterKind as Kind, type MetabaseResourceKind } from '@embedded-dashboard/protocol';
import { SALES_ROWS, type SalesRow } from '../sample-data/sales.js';

/**
 * The Metabase mode's sample data: one table of a few customers' sales, the items (dashboards and
 * questions) published for guest embedding over it, each parameter's kind as the publisher chose it
 * in the embed wizard (`embedding_params`). A parameter filters the column of its slug.
 */

/** A sample row. */
export type MetabaseSampleRow = SalesRow;

/** The columns parameters may filter (a parameter's slug is its column). */
export const METABASE_FILTER_COLUMNS = ['customer_id', 'region', 'product'] as const;
export type MetabaseFilterColumn = (typeof METABASE_FILTER_COLUMNS)[number];

/** A card on a dashboard (or a question's own): `table` shows the rows, `scalar` their total `amount`. */
export interface MetabaseSampleCard {
  readonly id: number;
  readonly name: string;
  readonly display: 'table' | 'scalar';
}

/** An item published (or not) for guest embedding. */
export interface MetabaseSampleItem {
  readonly kind: MetabaseResourceKind;
  /** Its sequential id (positive integer). */
  readonly id: number;
  /** Its entity id (21 characters), which a token may name instead of `id`. */
  readonly entityId?: string;
  readonly title: string;
  /** "Publish" in the embed wizard (`enable_embedding`). Default `true`. */
  readonly enableEmbedding?: boolean;
  /** Each parameter's slug and kind, in the order the item lists them. */
  readonly parameters: Readonly<Record<string, Kind>>;
  /** A dashboard's cards (dashcard id = card id here); a question is its one card. */
  readonly cards: readonly MetabaseSampleCard[];
}

export const METABASE_SAMPLE_ROWS: readonly MetabaseSampleRow[] = SALES_ROWS;

const { locked, enabled, disabled } = MetabaseParameterKind;
const CARDS: readonly MetabaseSampleCard[] = [
  { id: 1, name: 'Sales rows', display: 'table' },
  { id: 2, name: 'Total amount', display: 'scalar' },
];

/**
 * The default items: dashboard 1 "Sales" (`customer_id` locked, `region` editable, `product`
 * disabled), dashboard 2 not published, question 3 "Sales rows" (`customer_id` locked, `region`
 * editable).
 */
export const METABASE_SAMPLE_ITEMS: readonly MetabaseSampleItem[] = [
  {
    kind: 'dashboard',
    id: 1,
    entityId: 'salesDashboard0000001',
    title: 'Sales',
    parameters: { customer_id: locked, region: enabled, product: disabled },
    cards: CARDS,
  },
  { kind: 'dashboard', id: 2, title: 'Sales (not published)', enableEmbedding: false, parameters: { customer_id: locked }, cards: CARDS },
  {
    kind: 'question',
    id: 3,
    entityId: 'salesRowsQuestion0001',
    title: 'Sales rows',
    parameters: { customer_id: locked, region: enabled },
    cards: [{ id: 3, name: 'Sales rows', display: 'table' }],
  },
];
