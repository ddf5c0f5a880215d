/**
 * Metabase's guest (signed, formerly "static") embedding wire, as the BFF's Metabase adapter, the
 * element's Metabase protocol and the emulator's Metabase mode see it. This module: the embed
 * JWT's payload and its checks, the items and parameters it names, the errors. The frame URL and
 * its hash options are `frame-url.ts`, the window messages the frame posts `frame-messages.ts`.
 * Read off Metabase's documentation and public source (packages/protocol/README.md, "Metabase",
 * lists each page and file and marks what is assumed). Names, shapes and pure checks only: no
 * behaviour.
 */

/** The two kinds of item a guest embed shows; the JWT's `resource` names one of them. */
export const METABASE_RESOURCE_KINDS = ['dashboard', 'question'] as const;
export type MetabaseResourceKind = (typeof METABASE_RESOURCE_KINDS)[number];

/** The frame's path before the token, per kind (Metabase serves its single-page app there). */
export const METABASE_EMBED_PATHS: Readonly<Record<MetabaseResourceKind, string>> = {
  dashboard: '/embed/dashboard/',
  question: '/embed/question/',
};

/**
 * The JSON API the frame's app calls with the same token (`src/metabase/embedding/api/embed.clj`):
 * the item (`GET <base><token>`) and its data (`GET <base><token>/dashcard/<dashcard>/card/<card>`
 * for a dashboard, `GET <base><token>/query` for a question), the editable parameters in the query
 * string. A question is a "card" on this API.
 */
export const METABASE_EMBED_API: Readonly<Record<MetabaseResourceKind, string>> = {
  dashboard: '/api/embed/dashboard/',
  question: '/api/embed/card/',
};

/**
 * The embed JWT's checks (`src/metabase/embedding/jwt.clj` `unsign`, buddy-sign): HS256 only (buddy's
 * default algorithm; the header's `alg` must be present and not `none`), the key the embedding
 * secret's text as it is (its 64 characters as bytes, not hex-decoded: Metabase's examples pass the
 * string to `jwt.sign`), `exp` checked with 60 s of leeway (expired once `exp <= now - 60`); a token
 * without `exp` is not refused for it (buddy checks `exp` only when present; the BFF always sets one).
 */
export const METABASE_EMBED_JWT = { algorithm: 'HS256', leewaySeconds: 60, secretHexLength: 64 } as const;

/** Whether `text` is an embedding secret key Metabase accepts: 64 hexadecimal characters (a 256-bit key). */
export const isMetabaseSecret = (text: unknown): text is string => typeof text === 'string' && /^[0-9a-fA-F]{64}$/.test(text);

/**
 * An item's id in `resource`: its sequential id (a positive integer) or, on Pro/Enterprise, its
 * entity id (a 21-character NanoID of `A-Za-z0-9_-`).
 */
export type MetabaseResourceId = number | string;

/** Whether `value` can name an item in `resource`: a positive safe integer or an entity id. */
export const isMetabaseResourceId = (value: unknown): value is MetabaseResourceId =>
  (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) || (typeof value === 'string' && /^[A-Za-z0-9_-]{21}$/.test(value));

/** One scalar a parameter takes (text, number, boolean; `null` clears it). */
export type MetabaseParamScalar = string | number | boolean | null;
/** A parameter's value: a scalar or a list of them (`[]` is "no value": it turns the filter off). */
export type MetabaseParamValue = MetabaseParamScalar | readonly MetabaseParamScalar[];

/** The embed JWT's payload. `params` must always be present, even `{}`; `exp` is seconds since the epoch. */
export interface MetabaseEmbedClaims {
  resource: { dashboard: MetabaseResourceId } | { question: MetabaseResourceId };
  params: Record<string, MetabaseParamValue>;
  exp?: number;
}

/**
 * How an item's parameter (a dashboard filter's or SQL variable's slug) may be set in an embed, as
 * the publisher chose in the embed wizard (`embedding_params` on the item): `disabled` by nobody,
 * `enabled` ("Editable" in the wizard) by the token or the page but not both, `locked` only by the
 * token, which must.
 */
export const MetabaseParameterKind = { disabled: 'disabled', enabled: 'enabled', locked: 'locked' } as const;
export type MetabaseParameterKind = (typeof MetabaseParameterKind)[keyof typeof MetabaseParameterKind];

/** A parameter slug as Metabase writes one: lower-case words joined by `_`. */
export const isMetabaseSlug = (text: unknown): boolean => typeof text === 'string' && /^[a-z0-9][a-z0-9_]{0,99}$/.test(text);

/**
 * Metabase's 400 answers to a token or its parameters (the sentences of
 * `src/metabase/embedding/api/common.clj` and buddy-sign; `:slug` as Clojure prints a keyword).
 */
export const MetabaseEmbedError = {
  missingAlg: 'JWT is missing `alg`.',
  algNone: 'JWT `alg` cannot be `none`.',
  /** buddy-sign: a bad signature, another algorithm, or a token that does not parse. */
  corrupt: 'Message seems corrupt or manipulated.',
  expired: (exp: number) => `Token is expired (${exp})`,
  missingKey: (path: string) => `Token is missing value for keypath ${path}`,
  disabled: (slug: string) => `You're not allowed to specify a value for :${slug}.`,
  alreadyInToken: (slug: string) => `You can't specify a value for :${slug} if it's already set in the JWT.`,
  lockedMissing: (slug: string) => `You must specify a value for :${slug} in the JWT.`,
  lockedFromPage: (slug: string) => `You can only specify a value for :${slug} in the JWT.`,
  unknown: (slug: string) => `Unknown parameter :${slug}.`,
  embeddingDisabled: 'Embedding is not enabled for this object.',
  notFound: 'Not found.',
} as const;
