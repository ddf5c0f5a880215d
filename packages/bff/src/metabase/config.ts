import { isMetabaseSecret } from '@embedded-dashboard/protocol';
import type { BffVendor } from '../vendor/vendor-adapter.js';
import { metabaseItemKey, resolveMetabaseSettings } from './options.js';
import { metabaseVendor } from './metabase-vendor.js';

/*
 * Configuration step 1 for the Metabase vendor (environment text -> options; ARCHITECTURE §2.1):
 * its keys, on every runtime (CLI and `--config FILE`, Worker bindings, Lambda environment).
 */

/** The Metabase keys, read with `EMBED_VENDOR=metabase` (with the shared `EMBED_DASHBOARDS` and `EMBED_TOKEN_TTL`). */
export const METABASE_CONFIG_KEYS = ['EMBED_METABASE_SECRET', 'EMBED_METABASE_PARAMS', 'EMBED_METABASE_QUESTIONS'] as const;
type MetabaseKey = (typeof METABASE_CONFIG_KEYS)[number] | 'EMBED_DASHBOARDS' | 'EMBED_TOKEN_TTL';

/** Of {@link METABASE_CONFIG_KEYS}, the secrets: never quoted back. */
export const METABASE_SECRET_KEYS = ['EMBED_METABASE_SECRET'] as const;

/** The Metabase configuration, validated: `metabaseVendorOf` makes it the vendor. */
export interface MetabaseConfig {
  secret: string;
  params: Record<string, string>;
  dashboards: string[];
  questions: string[];
  ttlSeconds: number;
}

const idList = (text: string | undefined) =>
  (text ?? '')
    .split(',')
    .map((id) => id.trim())
    .filter((id) => id !== '');

/**
 * Reads the Metabase keys, one line per problem in `problems` (naming the key, never quoting the
 * secret). `EMBED_METABASE_PARAMS` is a JSON object from parameter slug to a template over
 * session claims; `{}` says on purpose that there is no locked parameter.
 */
export function parseMetabaseConfig(get: (key: MetabaseKey) => string | undefined, problems: string[]): MetabaseConfig | undefined {
  const before = problems.length;
  const secret = get('EMBED_METABASE_SECRET');
  if (secret === undefined) problems.push("EMBED_VENDOR=metabase needs EMBED_METABASE_SECRET: the embedding secret key (Metabase's Admin > Embedding)");
  else if (!isMetabaseSecret(secret)) problems.push('EMBED_METABASE_SECRET must be 64 hexadecimal characters, as Metabase generates it (value not shown)');

  const paramsText = get('EMBED_METABASE_PARAMS');
  let params: Record<string, string> | undefined;
  if (paramsText === undefined) {
    problems.push(
      'EMBED_METABASE_PARAMS is required: the locked parameters from the session, e.g. {"customer_id": "{org_id}"} ({} to embed without locked parameters on purpose)',
    );
  } else {
    let parsed: unknown;
    try {
      parsed = JSON.parse(paramsText);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
      problems.push('EMBED_METABASE_PARAMS must be a JSON object from parameter slug to a template over session claims, e.g. {"customer_id": "{org_id}"}');
    } else {
      params = parsed as Record<string, string>;
      try {
        // The templates and slugs, checked as the library checks them (a placeholder secret and item).
        resolveMetabaseSettings({ secret: '0'.repeat(64), params, dashboards: [1] });
      } catch (error) {
        problems.push(`EMBED_METABASE_PARAMS: ${(error as Error).message.replace(/^metabaseVendor: (params:? ?)?/, '')}`);
      }
    }
  }

  const dashboards = idList(get('EMBED_DASHBOARDS'));
  const questions = idList(get('EMBED_METABASE_QUESTIONS'));
  for (const [key, list] of [
    ['EMBED_DASHBOARDS', dashboards],
    ['EMBED_METABASE_QUESTIONS', questions],
  ] as const) {
    const bad = list.filter((id) => metabaseItemKey(id) === undefined);
    if (bad.length > 0)
      problems.push(
        `${key} must be Metabase ids, comma-separated: the number in the item's URL or its 21-character entity id (not ${bad.map((id) => JSON.stringify(id.slice(0, 40))).join(', ')})`,
      );
  }
  if (dashboards.length === 0 && questions.length === 0)
    problems.push('EMBED_DASHBOARDS (and/or EMBED_METABASE_QUESTIONS) is required with EMBED_VENDOR=metabase: the ids of the items this BFF embeds');

  const ttlText = get('EMBED_TOKEN_TTL') ?? '600';
  if (!/^\d+$/.test(ttlText) || Number(ttlText) < 30 || Number(ttlText) > 86_400)
    problems.push(`EMBED_TOKEN_TTL must be a whole number of seconds from 30 to 86400 for Metabase tokens (got ${JSON.stringify(ttlText.slice(0, 40))})`);

  if (problems.length > before) return undefined;
  return { secret: secret!, params: params!, dashboards, questions, ttlSeconds: Number(ttlText) };
}

/** The vendor for a validated configuration. */
export function metabaseVendorOf(config: MetabaseConfig): BffVendor {
  return metabaseVendor({
    secret: config.secret,
    params: config.params,
    dashboards: config.dashboards,
    questions: config.questions,
    ttlSeconds: config.ttlSeconds,
  });
}
