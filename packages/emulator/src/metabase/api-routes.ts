/**
 * The embed API the frame's app calls with its token (`src/metabase/embedding/api/embed.clj`):
 * the item's metadata (the parameters a page may set: the editable ones the token does not set) and
 * each card's data, the sample rows filtered by the merged parameters. Every refusal is Metabase's
 * status and sentence.
 */
import type { Hono } from 'hono';
import { METABASE_EMBED_API, type MetabaseParamValue, type MetabaseResourceKind } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { mergeParams, pageParamsFrom, resolveItem, unsign, type Verified } from './embed-token.js';
import { json, text, type WithFaults } from './http.js';
import type { MetabaseSetup } from './options.js';
import { METABASE_SAMPLE_ROWS, type MetabaseSampleCard, type MetabaseSampleItem, type MetabaseSampleRow } from './sample-data.js';

export interface MetabaseRouteContext {
  setup: () => MetabaseSetup;
  now: () => number;
  withFaults: WithFaults;
}

/** The token's item, verified as `/api/embed/*` does, or the refusal as Metabase answers it. */
export async function verifyFor(
  token: string,
  kind: MetabaseResourceKind,
  context: MetabaseRouteContext,
): Promise<Verified | { ok: false; status: 400 | 404; message: string }> {
  const setup = context.setup();
  const unsigned = await unsign(token, setup.secretKey, context.now());
  if (!unsigned.ok) return unsigned;
  return resolveItem(unsigned.claims, kind, setup);
}

/** The parameters a page may still set: the editable ones the token leaves open, in the item's order. */
export function pageParameters(item: MetabaseSampleItem, tokenParams: Readonly<Record<string, MetabaseParamValue>>) {
  return Object.entries(item.parameters)
    .filter(([slug, kind]) => kind === 'enabled' && !Object.hasOwn(tokenParams, slug))
    .map(([slug]) => ({ id: slug, slug, name: slug.replace(/_/g, ' '), type: 'string/=' }));
}

const matches = (row: MetabaseSampleRow, slug: string, value: MetabaseParamValue) => {
  const cell = String(row[slug as keyof MetabaseSampleRow]);
  const wanted = Array.isArray(value) ? value : [value];
  return wanted.some((item) => item !== null && String(item) === cell);
};

/** The sample rows the merged parameters leave. */
export function filterRows(values: Readonly<Record<string, MetabaseParamValue>>): MetabaseSampleRow[] {
  return METABASE_SAMPLE_ROWS.filter((row) => Object.entries(values).every(([slug, value]) => matches(row, slug, value)));
}

/** A card's data as the query processor answers it (`data.cols`, `data.rows`, `row_count`, `status`). */
function cardData(card: MetabaseSampleCard, rows: readonly MetabaseSampleRow[]) {
  if (card.display === 'scalar') {
    const total = rows.reduce((sum, row) => sum + row.amount, 0);
    return { data: { cols: [{ name: 'sum', display_name: 'Sum of Amount', base_type: 'type/Integer' }], rows: [[total]] }, row_count: 1, status: 'completed' };
  }
  const cols = ['customer_id', 'region', 'product', 'amount'] as const;
  return {
    data: {
      cols: cols.map((name) => ({ name, display_name: name.replace(/_/g, ' '), base_type: name === 'amount' ? 'type/Integer' : 'type/Text' })),
      rows: rows.map((row) => cols.map((name) => row[name])),
    },
    row_count: rows.length,
    status: 'completed',
  };
}

function itemJson(verified: Verified) {
  const { item, params } = verified;
  const base = { id: item.id, name: item.title, parameters: pageParameters(item, params) };
  if (item.kind === 'question') return { ...base, display: item.cards[0]!.display };
  return { ...base, dashcards: item.cards.map((card) => ({ id: card.id, card_id: card.id, card: { id: card.id, name: card.name, display: card.display } })) };
}

export function registerApiRoutes(app: Hono<EmulatorEnv>, context: MetabaseRouteContext): void {
  const item = (kind: MetabaseResourceKind) =>
    context.withFaults('embedItem', async (c) => {
      const verified = await verifyFor(c.req.param('token') ?? '', kind, context);
      if (!verified.ok) return text(verified.message, verified.status);
      return json(itemJson(verified));
    });
  const query = (
    kind: MetabaseResourceKind,
    card: (item: MetabaseSampleItem, dashcard: string | undefined, cardId: string | undefined) => MetabaseSampleCard | undefined,
  ) =>
    context.withFaults('embedQuery', async (c) => {
      const verified = await verifyFor(c.req.param('token') ?? '', kind, context);
      if (!verified.ok) return text(verified.message, verified.status);
      const found = card(verified.item, c.req.param('dashcard'), c.req.param('card'));
      if (!found) return text('Not found.', 404);
      const merged = mergeParams(verified.item, verified.params, pageParamsFrom(new URL(c.req.url).searchParams));
      if (!merged.ok) return text(merged.message, 400);
      return json(cardData(found, filterRows(merged.values)), 202);
    });

  app.get(`${METABASE_EMBED_API.dashboard}:token`, item('dashboard'));
  app.get(`${METABASE_EMBED_API.question}:token`, item('question'));
  app.get(
    `${METABASE_EMBED_API.dashboard}:token/dashcard/:dashcard/card/:card`,
    query('dashboard', (item, dashcard, card) => item.cards.find((c) => String(c.id) === dashcard && String(c.id) === card)),
  );
  app.get(
    `${METABASE_EMBED_API.question}:token/query`,
    query('question', (item) => item.cards[0]),
  );
}
