import { isRecord, METABASE_EMBED_JWT, MetabaseEmbedError, type MetabaseParamValue, type MetabaseResourceKind } from '@embedded-dashboard/protocol';
import type { MetabaseSetup } from './options.js';
import type { MetabaseSampleItem } from './sample-data.js';

/**
 * The embed token's checks as Metabase makes them (`src/metabase/embedding/jwt.clj` `unsign` over
 * buddy-sign's `jwt/unsign`, then `embedding/api/common.clj`), in their order, each failure the 400
 * (or 404) and sentence Metabase answers: the header's `alg` (missing; `none`), the secret set,
 * HS256 and the signature (buddy: "Message seems corrupt or manipulated."), `exp` and `nbf` with 60 s
 * of leeway, then embedding on, the resource (present, its id, the item, published), `params`
 * present. The parameter rules are {@link mergeParams}.
 */

export type Refusal = { status: 400 | 404; message: string };
export type Verified = { ok: true; item: MetabaseSampleItem; params: Record<string, MetabaseParamValue>; exp: number | undefined };

const decoder = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

function base64UrlJson(segment: string): unknown {
  if (!/^[A-Za-z0-9_-]*={0,2}$/.test(segment)) throw new Error('not base64url');
  return JSON.parse(decoder.decode(Buffer.from(segment, 'base64url')));
}

async function hmacSha256(key: string, text: string): Promise<Uint8Array> {
  const imported = await crypto.subtle.importKey('raw', encoder.encode(key), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, encoder.encode(text)));
}

const sameBytes = (a: Uint8Array, b: Uint8Array) => {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
};

/** `unsign`: the claims of a token Metabase accepts, or its refusal. */
export async function unsign(
  token: string,
  secretKey: string,
  nowMs: number,
): Promise<{ ok: true; claims: Record<string, unknown> } | ({ ok: false } & Refusal)> {
  const corrupt = { ok: false as const, status: 400 as const, message: MetabaseEmbedError.corrupt };
  // buddy splits at most three times: a fourth dot stays in the signature, which then fails.
  const dot1 = token.indexOf('.');
  const dot2 = dot1 === -1 ? -1 : token.indexOf('.', dot1 + 1);
  if (dot2 === -1) return corrupt;
  const [header, claims, signature] = [token.slice(0, dot1), token.slice(dot1 + 1, dot2), token.slice(dot2 + 1)];
  let headerJson: unknown;
  try {
    headerJson = base64UrlJson(header);
  } catch {
    return corrupt;
  }
  const alg = isRecord(headerJson) ? headerJson.alg : undefined;
  if (alg === undefined || alg === null || alg === false) return { ok: false, status: 400, message: MetabaseEmbedError.missingAlg };
  if (alg === 'none') return { ok: false, status: 400, message: MetabaseEmbedError.algNone };
  if (typeof alg !== 'string' || alg.toUpperCase() !== METABASE_EMBED_JWT.algorithm) return corrupt;
  if (!/^[A-Za-z0-9_-]+$/.test(signature)) return corrupt;
  const expected = await hmacSha256(secretKey, `${header}.${claims}`);
  if (!sameBytes(expected, new Uint8Array(Buffer.from(signature, 'base64url')))) return corrupt;
  let payload: unknown;
  try {
    payload = base64UrlJson(claims);
  } catch {
    return corrupt;
  }
  if (!isRecord(payload)) return corrupt;
  const now = Math.floor(nowMs / 1000);
  const leeway = METABASE_EMBED_JWT.leewaySeconds;
  // buddy compares only numbers it is given; a non-numeric exp or nbf makes the comparison throw (assumed: the same 400 as corrupt).
  for (const field of ['exp', 'nbf'] as const) {
    if (payload[field] !== undefined && payload[field] !== null && typeof payload[field] !== 'number') return corrupt;
  }
  if (typeof payload.exp === 'number' && payload.exp <= now - leeway) return { ok: false, status: 400, message: MetabaseEmbedError.expired(payload.exp) };
  if (typeof payload.nbf === 'number' && payload.nbf > now + leeway) return { ok: false, status: 400, message: `Token is not yet valid (${payload.nbf})` };
  return { ok: true, claims: payload };
}

/** The item a verified token opens, as `/api/embed/*` finds it, or Metabase's refusal. */
export function resolveItem(claims: Record<string, unknown>, kind: MetabaseResourceKind, setup: MetabaseSetup): Verified | ({ ok: false } & Refusal) {
  if (!setup.embeddingEnabled) return { ok: false, status: 400, message: 'Embedding is not enabled.' };
  const resource = isRecord(claims.resource) ? claims.resource : undefined;
  const raw = resource?.[kind];
  if (raw === undefined || raw === null || raw === false) return { ok: false, status: 400, message: MetabaseEmbedError.missingKey(`[:resource :${kind}]`) };
  let item: MetabaseSampleItem | undefined;
  if (typeof raw === 'string' && /^[A-Za-z0-9_-]{21}$/.test(raw)) {
    // An entity id is translated first (eid-translation); one that names nothing is a 404.
    item = setup.items.find((candidate) => candidate.kind === kind && candidate.entityId === raw);
    if (!item) return { ok: false, status: 404, message: MetabaseEmbedError.notFound };
  } else {
    if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1)
      return { ok: false, status: 400, message: `${kind === 'dashboard' ? 'Dashboard' : 'Card'} id should be a positive integer.` };
    item = setup.items.find((candidate) => candidate.kind === kind && candidate.id === raw);
    if (!item) return { ok: false, status: 404, message: MetabaseEmbedError.notFound };
  }
  if (item.enableEmbedding === false) return { ok: false, status: 400, message: MetabaseEmbedError.embeddingDisabled };
  const params = claims.params;
  // Clojure's `or`: an empty map is a value; a missing, null or false one is not.
  if (params === undefined || params === null || params === false) return { ok: false, status: 400, message: MetabaseEmbedError.missingKey('[:params]') };
  const tokenParams: Record<string, MetabaseParamValue> = isRecord(params)
    ? (Object.fromEntries(Object.entries(params)) as Record<string, MetabaseParamValue>)
    : {};
  return { ok: true, item, params: tokenParams, exp: typeof claims.exp === 'number' ? claims.exp : undefined };
}

/** `valid-param-value?`: anything but a blank string counts as given. */
const given = (value: unknown) => typeof value !== 'string' || value.trim() !== '';

/**
 * `validate-and-merge-params`: the token's and the page's parameters checked against the item's
 * kinds (in the item's order: disabled set by either; editable set by both; locked missing from the
 * token or set by the page), then every given slug must be one of the item's; the merged values,
 * the token's winning, `[]` as no value. A page value of `""` counts as given (`null` after
 * normalising), as in Metabase.
 */
export function mergeParams(
  item: MetabaseSampleItem,
  tokenParams: Readonly<Record<string, MetabaseParamValue>>,
  pageParams: Readonly<Record<string, MetabaseParamValue>>,
): { ok: true; values: Record<string, MetabaseParamValue> } | { ok: false; message: string } {
  const token = Object.fromEntries(Object.entries(tokenParams).filter(([, value]) => given(value)));
  const page = Object.fromEntries(Object.entries(pageParams).filter(([, value]) => given(value)));
  const has = (map: Record<string, unknown>, slug: string) => Object.hasOwn(map, slug);
  for (const [slug, kind] of Object.entries(item.parameters)) {
    if (kind === 'disabled' && (has(token, slug) || has(page, slug))) return { ok: false, message: MetabaseEmbedError.disabled(slug) };
    if (kind === 'enabled' && has(token, slug) && has(page, slug)) return { ok: false, message: MetabaseEmbedError.alreadyInToken(slug) };
    if (kind === 'locked') {
      if (!has(token, slug) || token[slug] === null || token[slug] === undefined) return { ok: false, message: MetabaseEmbedError.lockedMissing(slug) };
      if (has(page, slug)) return { ok: false, message: MetabaseEmbedError.lockedFromPage(slug) };
    }
  }
  for (const slug of [...Object.keys(page), ...Object.keys(token)]) {
    if (!Object.hasOwn(item.parameters, slug)) return { ok: false, message: MetabaseEmbedError.unknown(slug) };
  }
  const values: Record<string, MetabaseParamValue> = {};
  for (const [slug, value] of Object.entries({ ...pageParams, ...tokenParams })) {
    if (Array.isArray(value) && value.length === 0) continue;
    if (value === null || value === '') continue;
    values[slug] = value;
  }
  return { ok: true, values };
}

/**
 * `parse-query-params`: the page's parameters from the query string, the JSON of `parameters`
 * when it parses to an object (Metabase 51+), else each key's value (a repeated key a list).
 */
export function pageParamsFrom(search: URLSearchParams): Record<string, MetabaseParamValue> {
  const json = search.get('parameters');
  if (json !== null) {
    try {
      const parsed: unknown = JSON.parse(json);
      if (isRecord(parsed)) return Object.fromEntries(Object.entries(parsed).map(([slug, value]) => [slug, value as MetabaseParamValue]));
    } catch {
      // Falls back to the plain keys, as Metabase does.
    }
  }
  // Built from entries, so a key like `__proto__` is an own property (then refused as unknown), never the prototype.
  return Object.fromEntries(
    [...new Set(search.keys())].map((key) => {
      const all = search.getAll(key).map((value) => (value === '' ? null : value));
      return [key, all.length === 1 ? all[0]! : all];
    }),
  );
}
