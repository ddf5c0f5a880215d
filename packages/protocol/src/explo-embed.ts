/**
 * The vendor's (Explo's) embed secrets: short-lived encrypted embed tokens (a JWT with a JWE
 * body) that a host mints itself or gets from the Customer API's `generate_jwt`, and the iframe
 * URL that carries one. README.md in this package cites the page for each shape and says which
 * choices are ours; each such choice is made once, here, and used by the BFF, the client, the
 * emulator and the demo alike, so changing it is a change in this file.
 */

/**
 * The token's protected header: direct encryption with the embed secret (`dir`), content
 * encrypted with AES-256-GCM, and the secret's id as `kid`.
 */
export const EXPLO_EMBED_JWE = { alg: 'dir', enc: 'A256GCM' } as const;

/** A256GCM takes a 256-bit key. */
export const EXPLO_EMBED_KEY_BYTES = 32;

/**
 * The AES key an embed secret's value stands for. **Our choice** (the vendor's page shows
 * `key=` but not how the value becomes the 256-bit key): the value's UTF-8 bytes, as python-jose,
 * the library of its example, takes a string key, so the value must be exactly 32 bytes.
 * Throws a `TypeError` naming the problem otherwise.
 */
export function exploEmbedKey(secretValue: string): Uint8Array {
  if (typeof secretValue !== 'string') throw new TypeError('an embed secret value must be a string');
  const key = new TextEncoder().encode(secretValue);
  if (key.length !== EXPLO_EMBED_KEY_BYTES) {
    throw new TypeError(`an embed secret value must be ${EXPLO_EMBED_KEY_BYTES} bytes (its UTF-8 bytes are the A256GCM key); this one is ${key.length}`);
  }
  return key;
}

/**
 * A secret's id as it may stand in a `kid` header, a CLI flag and a log line: 1-128 visible
 * ASCII characters, no spaces, no `:` (the CLI's `ID:VALUE` separator).
 */
export const isExploEmbedKeyId = (value: unknown): value is string => typeof value === 'string' && /^[\x21-\x39\x3b-\x7e]{1,128}$/.test(value);

/** The claims of an embed token (page "Generating a JWT"). */
export interface ExploEmbedClaims {
  /** The customer's provided id. */
  cst: string;
  /** The embed id: the dashboard. */
  dsh: string;
  /** Expiry, NumericDate (seconds since the epoch). */
  exp: number;
  /** The embedding page's origin with a trailing `/` ("the trailing '/' will be required"): valid only from that origin. */
  iss?: string;
  /** Read-only report builder features (`flt`, `srt`, `core`, `crt-view`, `fork`, or `*`). */
  rbc?: string[];
  /** Disable editable section editing. */
  des?: boolean;
}

/** The `iss` claim for a page origin: the origin with the trailing `/` the vendor requires. */
export const exploEmbedIssuer = (origin: string): string => `${origin}/`;

/**
 * Whether `value` has the shape of a compact JWE: five base64url segments (the second, the
 * encrypted key, empty with `dir`), 4096 characters at most. This is how a dashboard host tells
 * an embed token in the iframe path from a dashboard id, which has no dots.
 */
export const isCompactJwe = (value: unknown): value is string =>
  typeof value === 'string' && value.length <= 4096 && /^[\w-]+\.[\w-]*\.[\w-]+\.[\w-]+\.[\w-]+$/.test(value);

/**
 * The iframe URL for an embed token, relative to the vendor's base URL (page "Option 2: IFrame":
 * `https://app.explo.co/iframe/<jwt>/<environment>`), as a `src-template` for
 * `<embedded-dashboard protocol="explo-jwt">`. The token takes the place of the dashboard id and
 * customer token; the environment stays optional.
 */
export const EXPLO_JWT_IFRAME_PATH = '/iframe/{token}/{environment}';

/**
 * A dashboard (embed) id as the BFF accepts it in a token request and in `EMBED_DASHBOARDS`:
 * 1-128 of `A-Z a-z 0-9 _ -` (URL-safe, and never a compact JWE).
 */
export const isDashboardId = (value: unknown): value is string => typeof value === 'string' && /^[\w-]{1,128}$/.test(value);

/** Body of the Customer API's `POST /api/generate_jwt/` (page "Generate Embed JWT"). */
export interface ExploGenerateJwtInput {
  provided_id: string;
  embed_id: string;
  /** The embed secret to encrypt with; the vendor generates one when absent. */
  key_id?: string | null;
  /** An ISO-8601 duration (`PT1H`); the vendor's default is 24 hours. */
  expiration?: string | null;
  /** A single chart to embed (a feature the vendor enables per account). */
  chart_id?: string | null;
  rb_allowed_features?: string[] | null;
  disable_editable_section_editing?: boolean | null;
  /** The embedding origin with its trailing `/`; becomes the token's `iss`. */
  embed_origin?: string | null;
}

/** Every field `generate_jwt` documents, in the page's order: what a caller may send, and all the vendor takes. */
// A plain literal (readonly by type), not Object.freeze(...): a call would keep it in every bundle of the element.
export const GENERATE_JWT_FIELDS = [
  'provided_id',
  'embed_id',
  'key_id',
  'expiration',
  'chart_id',
  'rb_allowed_features',
  'disable_editable_section_editing',
  'embed_origin',
] as const satisfies readonly (keyof ExploGenerateJwtInput)[];

/** Answer of `POST /api/generate_jwt/`. */
export interface ExploGenerateJwtResponse {
  success: 1;
  jwt: string;
}

/** Seconds as the ISO-8601 duration `generate_jwt` takes (`PT3600S`). */
export const isoDurationSeconds = (seconds: number): string => `PT${seconds}S`;
