import { EncryptJWT, errors, jwtDecrypt, type JWTPayload } from 'jose';
import { EXPLO_EMBED_JWE, isCompactJwe, type ExploEmbedClaims } from '@embedded-dashboard/protocol';
import type { EmbedKeyring, EmbedSecret } from './embed-secrets.js';

/** Features of the read-only report builder claim (`rbc`), from the vendor's read-only page; `*` is all. */
export const REPORT_BUILDER_FEATURES: readonly string[] = ['*', 'flt', 'srt', 'core', 'crt-view', 'fork'];

/** An origin with the trailing `/` the vendor requires in `iss` and `embed_origin`. */
export const ISSUER = /^https?:\/\/(?:\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?\/$/i;

/**
 * The documented claims, and the emulator's own `cht`: the chart of a single-chart token minted by
 * its `generate_jwt` (`chart_id`). The vendor documents no claim for it (a BFF never mints one); a
 * token only this emulator makes carries it.
 */
export type EmulatorEmbedClaims = ExploEmbedClaims & { cht?: string };

/** What a frame learns from an embed token. */
export type EmbedTokenCheck =
  | { ok: true; claims: EmulatorEmbedClaims; secret: EmbedSecret }
  /** The token was the vendor's and well-formed, but its `exp` has passed: the host should send a new one. */
  | { ok: false; expired: true; message: string; claims: EmulatorEmbedClaims }
  /** Anything else; `message` says what, for the error page and the data route (never the token or a key). */
  | { ok: false; expired: false; message: string };

/** Encrypts `claims` as an embed token with `secret` (`dir`, `A256GCM`, the secret's id as `kid`). */
export function encryptEmbedToken(secret: EmbedSecret, claims: EmulatorEmbedClaims): Promise<string> {
  return new EncryptJWT({ ...claims }).setProtectedHeader({ ...EXPLO_EMBED_JWE, kid: secret.id }).encrypt(secret.key);
}

const refused = (message: string): EmbedTokenCheck => ({ ok: false, expired: false, message });

/** Why a token failed before its claims could be read. */
function whyNot(error: unknown, keyFound: boolean): string {
  if (error instanceof errors.JOSEAlgNotAllowed) return 'it is not encrypted with dir and A256GCM';
  if (!keyFound) return 'its kid names no embed secret of this account';
  if (error instanceof errors.JWTClaimValidationFailed) return `its ${error.claim} claim is not valid (${error.reason})`;
  if (error instanceof errors.JWTInvalid) return 'its payload is not a JSON object';
  return 'it does not decrypt with its embed secret';
}

/** The claims the vendor documents, each checked; anything else in the payload is ignored. */
function claimsOf(payload: JWTPayload): EmulatorEmbedClaims | string {
  const { cst, dsh, exp, iss, rbc, des, cht } = payload as Record<string, unknown>;
  if (typeof cst !== 'string' || cst === '' || cst.length > 256) return 'its cst (the customer id) is not a string of 1-256 characters';
  if (typeof dsh !== 'string' || dsh === '' || dsh.length > 256) return 'its dsh (the embed id) is not a string of 1-256 characters';
  if (typeof exp !== 'number' || !Number.isFinite(exp)) return 'it has no exp';
  if (iss !== undefined && (typeof iss !== 'string' || !ISSUER.test(iss))) return "its iss is not an origin with the trailing '/'";
  if (
    rbc !== undefined &&
    (!Array.isArray(rbc) || rbc.length > REPORT_BUILDER_FEATURES.length || !rbc.every((f) => REPORT_BUILDER_FEATURES.includes(f as string)))
  ) {
    return `its rbc is not a list of ${REPORT_BUILDER_FEATURES.join(', ')}`;
  }
  if (des !== undefined && typeof des !== 'boolean') return 'its des is not a boolean';
  if (cht !== undefined && (typeof cht !== 'string' || !/^[\w-]{1,128}$/.test(cht))) return 'its cht (the chart id) is not a chart id';
  return {
    cst,
    dsh,
    exp,
    ...(iss !== undefined && { iss }),
    ...(rbc !== undefined && { rbc: rbc as string[] }),
    ...(des !== undefined && { des }),
    ...(cht !== undefined && { cht }),
  };
}

/**
 * Decrypts an embed token and checks what a dashboard frame must: the shape of a compact JWE,
 * a `kid` naming a known secret, `dir` + `A256GCM` only, an intact ciphertext, the documented
 * claims well-formed, and `exp` (on the emulator's clock `nowMs`). Never throws.
 */
export async function readEmbedToken(jwt: string, keyring: EmbedKeyring, nowMs: number): Promise<EmbedTokenCheck> {
  if (!isCompactJwe(jwt)) return refused('it is not a compact JWE');
  let secret: EmbedSecret | undefined;
  let payload: JWTPayload;
  let expired = false;
  try {
    ({ payload } = await jwtDecrypt(
      jwt,
      (header) => {
        secret = typeof header.kid === 'string' ? keyring.get(header.kid) : undefined;
        if (!secret) throw new errors.JWEInvalid('unknown kid');
        return secret.key;
      },
      { keyManagementAlgorithms: [EXPLO_EMBED_JWE.alg], contentEncryptionAlgorithms: [EXPLO_EMBED_JWE.enc], currentDate: new Date(nowMs) },
    ));
  } catch (error) {
    if (!(error instanceof errors.JWTExpired)) return refused(whyNot(error, secret !== undefined));
    // Decrypted (authentication precedes claim validation): only its time is up.
    payload = error.payload;
    expired = true;
  }
  const claims = claimsOf(payload);
  if (typeof claims === 'string') return refused(`the embed token is malformed: ${claims}`);
  if (expired) return { ok: false, expired: true, message: 'the embed token has expired', claims };
  return { ok: true, claims, secret: secret! };
}
