import { EncryptJWT } from 'jose';
import { EXPLO_EMBED_JWE, exploEmbedIssuer, type TokenResponse } from '@embedded-dashboard/protocol';
import type { EmbedTokenSettings } from './settings.js';

/** What an embed token is minted for. */
export interface EmbedTokenRequest {
  /** The customer's provided id (the session's group id): `cst`. */
  customer: string;
  /** The embed id: `dsh`. */
  dashboard: string;
  /** The embedding page's origin; `iss` is it plus `/`. `undefined`: no `iss`. */
  pageOrigin: string | undefined;
}

/** Mints one embed token and answers it as the token routes do. */
export type MintEmbedToken = (request: EmbedTokenRequest) => Promise<TokenResponse>;

/**
 * Mints embed tokens in this process, with no vendor call: `cst`, `dsh`, `exp` (now + the token
 * TTL, whole seconds; `expiresAt` is the same instant) and `iss`, encrypted `dir` + `A256GCM` with
 * the secret's key, its id as `kid` in the protected header. The key is imported once as a
 * non-extractable `CryptoKey`.
 */
export function localMinter(settings: Pick<EmbedTokenSettings, 'keyId' | 'key' | 'ttlSeconds'>, now: () => number): MintEmbedToken {
  let key: Promise<CryptoKey> | undefined;
  return async function mintLocally({ customer, dashboard, pageOrigin }) {
    key ??= crypto.subtle.importKey('raw', settings.key as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt']);
    const serverTime = now();
    const exp = Math.floor(serverTime / 1000) + settings.ttlSeconds;
    const token = await new EncryptJWT({ cst: customer, dsh: dashboard, exp, ...(pageOrigin !== undefined && { iss: exploEmbedIssuer(pageOrigin) }) })
      .setProtectedHeader({ ...EXPLO_EMBED_JWE, kid: settings.keyId })
      .encrypt(await key);
    return { token, expiresAt: exp * 1000, serverTime };
  };
}
