import type { MetabaseEmbedClaims, MetabaseParamScalar, MetabaseResourceKind, TokenRequest } from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import { claimValue, renderClaimTemplate, type ClaimScalar } from '../claim-template/claim-template.js';
import { BffError } from '../errors/bff-error.js';
import type { MetabaseSettings } from './options.js';

/** What a token is for: one dashboard or one question, by the id Metabase knows it by. */
export interface MetabaseResource {
  kind: MetabaseResourceKind;
  /** A sequential id as a number, an entity id as text (what `resource` carries). */
  id: number | string;
  /** The id as text (store keys, logs). */
  key: string;
}

/**
 * The item a token request names, when this BFF embeds it: `{"dashboard": "<id>"}` a dashboard,
 * `{"chart": "<id>"}` a question (a Metabase question is one chart; the element's `chart`
 * attribute). Neither, both, or one not allow-listed: 400 / 403.
 */
export function resourceOf(settings: MetabaseSettings, scope: TokenRequest): MetabaseResource {
  const { dashboard, chart } = scope;
  if (dashboard !== undefined && chart !== undefined)
    throw new BffError('bad_request', 'name a dashboard or a question ("chart"), not both: a Metabase guest embed shows one item');
  if (dashboard === undefined && chart === undefined)
    throw new BffError('bad_request', 'the body must name the item: {"dashboard": "<id>"} or, for a question, {"chart": "<id>"}');
  const kind: MetabaseResourceKind = dashboard !== undefined ? 'dashboard' : 'question';
  const key = (dashboard ?? chart)!;
  const allowed = kind === 'dashboard' ? settings.dashboards : settings.questions;
  if (!allowed.has(key)) throw new BffError('forbidden', `${kind} "${key}" is not one this BFF embeds`);
  return { kind, id: /^\d+$/.test(key) ? Number(key) : key, key };
}

/**
 * A locked parameter's value for a session: a one-element list (Metabase's documented form), the
 * claim itself when the template is one placeholder (a number stays a number), else the rendered
 * text. Never empty: `[]` or `""` would turn the filter off (docs: "[] turns a locked filter off";
 * a blank string counts as no value), so a claim that would render to nothing is refused (403) by
 * `claimValue`, as is a missing, non-scalar, oversized or odd one.
 */
function lockedValue(template: MetabaseSettings['params'][number]['template'], claims: Readonly<Record<string, unknown>>): MetabaseParamScalar[] {
  const { parts } = template;
  if (parts.length === 1 && 'claim' in parts[0]!) return [claimValue(claims, parts[0].claim)];
  const text = renderClaimTemplate(template, claims, (value: ClaimScalar) => String(value));
  if (text.trim() === '') throw new BffError('forbidden', 'a locked parameter rendered from the session is blank');
  return [text];
}

/** The token's payload for `caller`: the one item, every locked parameter from the session, the expiry. */
export function embedClaims(settings: MetabaseSettings, caller: Caller, resource: MetabaseResource, exp: number): MetabaseEmbedClaims {
  // Built from entries: a slug is never a prototype key (isMetabaseSlug refuses `__proto__` at start, this keeps it so).
  const params = Object.fromEntries(settings.params.map(({ slug, template }) => [slug, lockedValue(template, caller.claims)]));
  const item = resource.kind === 'dashboard' ? { dashboard: resource.id } : { question: resource.id };
  return { resource: item, params, exp };
}
