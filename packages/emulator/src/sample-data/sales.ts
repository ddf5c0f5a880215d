/**
 * The sales rows every vendor mode serves (Superset's `sales` dataset, Metabase's sample
 * dashboard): a few customers', an apostrophe in one id so quoting is exercised. One list, so the
 * vendors' tests and the demo show the same rows for the same customer.
 */

/** A type, not an interface, so it is also a `Record` (Superset's SQL clauses read rows by column name). */
export type SalesRow = Readonly<{ customer_id: string; region: string; product: string; amount: number }>;

const rows: [string, string, string, number][] = [
  ['acme', 'north', 'anvil', 120],
  ['acme', 'south', 'rocket', 300],
  ['acme', 'north', 'magnet', 45],
  ['globex', 'east', 'reactor', 1000],
  ['globex', 'west', 'turbine', 250],
  ['initech', 'north', 'stapler', 7],
  ['initech', 'east', 'printer', 410],
  ['initech', 'south', 'tps', 3],
  ['initech', 'west', 'mug', 12],
  ["o'hare", 'south', 'ticket', 99],
];

export const SALES_ROWS: readonly SalesRow[] = rows.map(([customer_id, region, product, amount]) => Object.freeze({ customer_id, region, product, amount }));
