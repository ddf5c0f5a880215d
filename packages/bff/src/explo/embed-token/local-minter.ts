import { EncryptJWT } from 'jose';
import { EXPLO_EMBED_JWE, exploEmbedIssuer, type TokenResponse } from '@embedded-dashboard/protocol';
import type { EmbedTokenSettings } from './settings.js';

/** What an embed token is minted for. */
export interface EmbedTokenRequest {
  /** The customer's provided id (the session's group id): `cst`. */
  customer: string;
  /** The customer's store key (its group's), under which the BFF keeps what it knows of it. */
  groupKey: string;
  /** The embed id: `dsh`. */
  dashboard: string;
  /** One chart of the dashboard (`generate_jwt`'s `chart_id`); only the vendor mints such a token. */
  chart: string | undefined;
  /** Editable sections locked: `des` (the vendor's `disable_editable_section_editing`); `undefined`: not said. */
  disableEditableSectionEditing: boolean | undefined;
  /** The embedding page's origin; `iss` is it plus `/`. `undefined`: no `iss`. */
  pageOrigin: string | undefined;
}

/** Where the token routes get embed tokens: minted here (`localMinter`) or by the vendor (`VendorMinter`). */
export interface EmbedTokenMinter {
  /** A token for a page view (`POST /token`). */
  token(request: EmbedTokenRequest): Promise<TokenResponse>;
  /** A token for the holder of `presented`, which is due or was refused (`POST /token/rotate`). */
  renew(request: EmbedTokenRequest, presented: string): Promise<TokenResponse>;
}

/**
 * Mints embed tokens in this process, with no vendor call: `cst`, `dsh`, `exp` (now + the token
 * TTL, whole seconds; `expiresAt` is the same instant), `iss`, and `des` when configured, encrypted `dir` + `A256GCM` with
 * the secret's key, its id as `kid` in the protected header. The key is imported once as a
 * non-extractable `CryptoKey`. Every request gets a new token: a renewal is a new mint.
 */
export function localMinter(settings: Pick<EmbedTokenSettings, 'keyId' | 'key' | 'ttlSeconds'>, now: () => number): EmbedTokenMinter {
  let key: Promise<CryptoKey> | undefined;
  const mint = async ({ customer, dashboard, pageOrigin, disableEditableSectionEditing: des }: EmbedTokenRequest): Promise<TokenResponse> => {
    key ??= crypto.subtle.importKey('raw', settings.key as Uint8Array<ArrayBuffer>, 'AES-GCM', false, ['encrypt']);
    const serverTime = now();
    const exp = Math.floor(serverTime / 1000) + settings.ttlSeconds;
    const claims = {
      cst: customer,
      dsh: dashboard,
      exp,
      ...(pageOrigin !== undefined && { iss: exploEmbedIssuer(pageOrigin) }),
      ...(des !== undefined && { des }),
    };
    const token = await new EncryptJWT(claims).setProtectedHeader({ ...EXPLO_EMBED_JWE, kid: settings.keyId }).encrypt(await key);
    return { token, expiresAt: exp * 1000, serverTime };
  };
  return { token: mint, renew: mint };
}
