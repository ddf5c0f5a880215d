import {
  isRecord,
  isMetabaseResourceId,
  isMetabaseSecret,
  isMetabaseSlug,
  METABASE_RESOURCE_KINDS,
  MetabaseParameterKind,
  type MetabaseResourceKind,
} from '@embedded-dashboard/protocol';
import { parseFaultSettings, type VendorFaultSettings } from '../faults/settings.js';
import { METABASE_FILTER_COLUMNS, METABASE_SAMPLE_ITEMS, type MetabaseSampleCard, type MetabaseSampleItem } from './sample-data.js';

/**
 * The operations of the Metabase mode faults can be limited to: the frame page, the item's
 * metadata (`GET /api/embed/dashboard/:token`, `/api/embed/card/:token`) and a card's data.
 */
export const METABASE_FAULT_OPERATIONS = ['embedPage', 'embedItem', 'embedQuery'] as const;
export type MetabaseFaultOperation = (typeof METABASE_FAULT_OPERATIONS)[number];
export type MetabaseFaultSettings = VendorFaultSettings<MetabaseFaultOperation>;

/**
 * The emulator's development embedding secret (64 hex characters, as Metabase's Admin > Embedding
 * generates one). Public by design: a local stand-in's key, never a real instance's.
 */
export const DEFAULT_METABASE_SECRET = '6d6574616261736520656d756c61746f722064657620736563726574206b6579';

/** CSP `frame-ancestors` of the frame page by default: any origin, as a guest embed is framed anywhere. */
export const DEFAULT_METABASE_FRAME_ANCESTORS: readonly string[] = ['*'];

/** How the emulator's Metabase mode behaves (every field optional). */
export interface MetabaseEmulatorOptions {
  /** The embedding secret key (Admin > Embedding): 64 hex characters. Default {@link DEFAULT_METABASE_SECRET}. */
  secretKey?: string;
  /** "Enable guest embeds" (the `enable-embedding-static` setting). Default `true`. */
  embeddingEnabled?: boolean;
  /** The items, their parameters and kinds. Default {@link METABASE_SAMPLE_ITEMS}. */
  items?: MetabaseSampleItem[];
  /** CSP `frame-ancestors` of the frame page. Default `*`. */
  frameAncestors?: string[];
  /** Mount `/__emulator/faults`, `/__emulator/stats` and `/__emulator/setup`. Default `false`. */
  admin?: boolean;
  faults?: MetabaseFaultSettings;
  /** The clock, epoch ms. Default `Date.now`. */
  now?: () => number;
}

/** The settings an admin may replace at run time (`PUT /__emulator/setup`). */
export interface MetabaseSetup {
  secretKey: string;
  embeddingEnabled: boolean;
  items: readonly MetabaseSampleItem[];
}

export interface ResolvedMetabaseOptions extends MetabaseSetup {
  frameAncestors: readonly string[];
  admin: boolean;
  faults: MetabaseFaultSettings;
  now: () => number;
}

const KINDS = new Set<string>(Object.values(MetabaseParameterKind));
const MAX_ITEMS = 100;

/** Checks untrusted items (options, the admin route) and returns clean frozen copies; a bad one throws a `TypeError`. */
export function parseItems(value: unknown): MetabaseSampleItem[] {
  if (!Array.isArray(value) || value.length > MAX_ITEMS) throw new TypeError(`items must be an array of at most ${MAX_ITEMS} items`);
  const seen = new Set<string>();
  return value.map((raw, index) => {
    const where = `items[${index}]`;
    if (!isRecord(raw)) throw new TypeError(`${where} must be an object`);
    for (const key of Object.keys(raw))
      if (!['kind', 'id', 'entityId', 'title', 'enableEmbedding', 'parameters', 'cards'].includes(key))
        throw new TypeError(`${where}: unknown field ${JSON.stringify(key.slice(0, 64))}`);
    const kind = raw.kind;
    if (!(METABASE_RESOURCE_KINDS as readonly unknown[]).includes(kind)) throw new TypeError(`${where}.kind must be dashboard or question`);
    if (typeof raw.id !== 'number' || !isMetabaseResourceId(raw.id)) throw new TypeError(`${where}.id must be a positive integer`);
    if (raw.entityId !== undefined && (typeof raw.entityId !== 'string' || !isMetabaseResourceId(raw.entityId)))
      throw new TypeError(`${where}.entityId must be 21 characters of A-Z a-z 0-9 _ -`);
    for (const name of [`${String(kind)}:${raw.id}`, raw.entityId === undefined ? '' : `${String(kind)}:${raw.entityId}`]) {
      if (name === '') continue;
      if (seen.has(name)) throw new TypeError(`${where}: ${name} is given twice`);
      seen.add(name);
    }
    if (typeof raw.title !== 'string' || raw.title === '' || raw.title.length > 200) throw new TypeError(`${where}.title must be 1-200 characters`);
    if (raw.enableEmbedding !== undefined && typeof raw.enableEmbedding !== 'boolean') throw new TypeError(`${where}.enableEmbedding must be a boolean`);
    if (!isRecord(raw.parameters)) throw new TypeError(`${where}.parameters must be an object of slug to kind`);
    const parameters: Record<string, MetabaseParameterKind> = {};
    for (const [slug, parameterKind] of Object.entries(raw.parameters)) {
      if (!isMetabaseSlug(slug) || !(METABASE_FILTER_COLUMNS as readonly string[]).includes(slug))
        throw new TypeError(`${where}.parameters: a slug must be one of the sample columns ${METABASE_FILTER_COLUMNS.join(', ')}`);
      if (!KINDS.has(parameterKind as string)) throw new TypeError(`${where}.parameters.${slug} must be disabled, enabled or locked`);
      parameters[slug] = parameterKind as MetabaseParameterKind;
    }
    const cardsInput = raw.cards ?? (kind === 'dashboard' ? METABASE_SAMPLE_ITEMS[0]!.cards : [{ id: raw.id, name: raw.title, display: 'table' }]);
    if (!Array.isArray(cardsInput) || cardsInput.length === 0 || cardsInput.length > 10 || (kind === 'question' && cardsInput.length !== 1))
      throw new TypeError(`${where}.cards must be 1-10 cards (a question: exactly 1)`);
    const cards: MetabaseSampleCard[] = cardsInput.map((card: unknown, cardIndex: number) => {
      if (
        !isRecord(card) ||
        typeof card.id !== 'number' ||
        !isMetabaseResourceId(card.id) ||
        typeof card.name !== 'string' ||
        card.name === '' ||
        card.name.length > 200 ||
        (card.display !== 'table' && card.display !== 'scalar')
      )
        throw new TypeError(`${where}.cards[${cardIndex}] must be { id, name, display: table | scalar }`);
      return Object.freeze({ id: card.id, name: card.name, display: card.display });
    });
    return Object.freeze({
      kind: kind as MetabaseResourceKind,
      id: raw.id,
      ...(raw.entityId === undefined ? {} : { entityId: raw.entityId }),
      title: raw.title,
      enableEmbedding: raw.enableEmbedding ?? true,
      parameters: Object.freeze(parameters),
      cards: Object.freeze(cards),
    });
  });
}

/** Checks the options; a bad one throws a `TypeError` naming it (never repeating the secret). */
export function resolveMetabaseOptions(options: MetabaseEmulatorOptions): ResolvedMetabaseOptions {
  if (options.secretKey !== undefined && !isMetabaseSecret(options.secretKey)) throw new TypeError('secretKey must be 64 hexadecimal characters');
  if (options.embeddingEnabled !== undefined && typeof options.embeddingEnabled !== 'boolean') throw new TypeError('embeddingEnabled must be a boolean');
  const frameAncestors = options.frameAncestors ?? DEFAULT_METABASE_FRAME_ANCESTORS;
  if (
    !Array.isArray(frameAncestors) ||
    frameAncestors.length === 0 ||
    !frameAncestors.every((source) => typeof source === 'string' && /^[^\s;,]+$/.test(source))
  )
    throw new TypeError('frameAncestors must be a non-empty list of CSP sources');
  return {
    secretKey: options.secretKey ?? DEFAULT_METABASE_SECRET,
    embeddingEnabled: options.embeddingEnabled ?? true,
    items: parseItems(options.items ?? METABASE_SAMPLE_ITEMS),
    frameAncestors,
    admin: options.admin ?? false,
    faults: options.faults === undefined ? {} : parseFaultSettings(options.faults, METABASE_FAULT_OPERATIONS),
    now: options.now ?? Date.now,
  };
}
