import { isMetabaseSecret, isMetabaseSlug } from '@embedded-dashboard/protocol';
import { parseClaimTemplate, type ClaimTemplate } from '../claim-template/claim-template.js';

/*
 * Configuration steps 2 and 3 for the Metabase vendor (ARCHITECTURE §2.1): `metabaseVendor`'s
 * options as types, and their check (a `TypeError` naming the option, never quoting the secret).
 */

/** An item id as `EMBED_DASHBOARDS` and the token request name it: a sequential id (`7`) or a 21-character entity id. */
export type MetabaseItemId = number | string;

/**
 * Options of `metabaseVendor`: the BFF signs Metabase guest-embed tokens itself with the
 * instance's embedding secret, so no request to Metabase is ever made.
 *
 * @example
 * ```ts
 * metabaseVendor({
 *   secret: process.env.EMBED_METABASE_SECRET!,
 *   params: { customer_id: '{org_id}' },
 *   dashboards: [7],
 * });
 * ```
 */
export interface MetabaseVendorOptions {
  /** The embedding secret key (Admin > Embedding): 64 hexadecimal characters. Never logged. */
  secret: string;
  /**
   * The locked parameters, from each parameter's slug to a template over session claims
   * (`{"customer_id": "{org_id}"}`): each token carries every one, rendered from the session and
   * never from the request. A template that is one placeholder keeps the claim's type (a number
   * stays a number); with text around it the value is the text. `{}` says on purpose that the
   * items have no locked parameter (every customer then sees the same data). Required.
   */
  params: Record<string, string>;
  /** Dashboards a session may get a token for (`{"dashboard": "<id>"}`); any other is `403 forbidden`. */
  dashboards?: MetabaseItemId[];
  /** Questions a session may get a token for (`{"chart": "<id>"}`, the element's `chart` attribute). */
  questions?: MetabaseItemId[];
  /** Each token's lifetime in seconds, 30 to 86 400. Default 600 (Metabase's examples' ten minutes). */
  ttlSeconds?: number;
}

/** The options checked, templates parsed. */
export interface MetabaseSettings {
  /** The key's bytes: the secret's text as is, as Metabase's documented examples sign with it. */
  key: Uint8Array;
  params: readonly { slug: string; template: ClaimTemplate }[];
  dashboards: ReadonlySet<string>;
  questions: ReadonlySet<string>;
  ttlSeconds: number;
}

/** A sequential id (positive safe integer, no leading zero) or an entity id, as text. */
export function metabaseItemKey(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value > 0 ? String(value) : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^[1-9]\d{0,15}$/.test(value) && Number.isSafeInteger(Number(value))) return value;
  return /^[A-Za-z0-9_-]{21}$/.test(value) ? value : undefined;
}

const MAX_ITEMS = 1_000;
const MAX_PARAMS = 32;

function items(name: string, list: unknown): Set<string> {
  if (list === undefined) return new Set();
  if (!Array.isArray(list) || list.length > MAX_ITEMS) throw new TypeError(`metabaseVendor: ${name} must be a list of at most ${MAX_ITEMS} ids`);
  const keys = list.map((id) => metabaseItemKey(id));
  if (keys.some((key) => key === undefined))
    throw new TypeError(`metabaseVendor: ${name} must be ids: positive integers (the number in the item's URL) or 21-character entity ids`);
  return new Set(keys as string[]);
}

/** Checks `metabaseVendor`'s options; a mistake throws a `TypeError` naming the option. */
export function resolveMetabaseSettings(options: MetabaseVendorOptions): MetabaseSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('metabaseVendor: options must be an object');
  const { secret, params, ttlSeconds = 600 } = options;
  if (!isMetabaseSecret(secret))
    throw new TypeError("metabaseVendor: secret must be the embedding secret key, 64 hexadecimal characters (Metabase's Admin > Embedding; value not shown)");
  if (params === undefined)
    throw new TypeError('metabaseVendor: params is required: the locked parameters, e.g. {"customer_id": "{org_id}"} ({} for none, on purpose)');
  if (typeof params !== 'object' || params === null || Array.isArray(params) || Object.getPrototypeOf(params) !== Object.prototype)
    throw new TypeError('metabaseVendor: params must be an object from parameter slug to a template over session claims');
  const entries = Object.entries(params);
  if (entries.length > MAX_PARAMS) throw new TypeError(`metabaseVendor: params has more than ${MAX_PARAMS} parameters`);
  const parsed = entries.map(([slug, template]) => {
    if (!isMetabaseSlug(slug))
      throw new TypeError(`metabaseVendor: params: ${JSON.stringify(slug.slice(0, 64))} is not a parameter slug (lower-case a-z 0-9 _, as Metabase writes it)`);
    return { slug, template: parseClaimTemplate(template, { name: `metabaseVendor: params.${slug}` }) };
  });
  const dashboards = items('dashboards', options.dashboards);
  const questions = items('questions', options.questions);
  if (dashboards.size === 0 && questions.size === 0) throw new TypeError('metabaseVendor: name the dashboards (and/or questions) this BFF embeds');
  if (!Number.isSafeInteger(ttlSeconds) || ttlSeconds < 30 || ttlSeconds > 86_400)
    throw new TypeError('metabaseVendor: ttlSeconds must be a whole number from 30 to 86400');
  return { key: new TextEncoder().encode(secret), params: parsed, dashboards, questions, ttlSeconds };
}
