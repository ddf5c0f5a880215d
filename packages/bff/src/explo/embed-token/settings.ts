import { exploEmbedKey, isDashboardId, isExploEmbedKeyId } from '@embedded-dashboard/protocol';
import type { UserGroupUpstream } from '../../customer-token/upstream.js';
import type { EmbedTokenOptions } from './options.js';

/*
 * Configuration step 3 of 5 for embed tokens (resolved settings; ARCHITECTURE §2.1): `embedToken`
 * checked, the key as its bytes.
 */

/** Embed-token options checked once, with the key as its bytes. */
export interface EmbedTokenSettings {
  keyId: string;
  /** The A256GCM key; `undefined` only with `mint: 'vendor'` and no key given. */
  key: Uint8Array | undefined;
  /** `undefined`: any dashboard. */
  dashboards: ReadonlySet<string> | undefined;
  mint: 'local' | 'vendor';
  /** Seconds each token lives: the BFF's token TTL. */
  ttlSeconds: number;
  /** `des` / `disable_editable_section_editing` of every token; `undefined`: not said (the vendor's default). */
  disableEditableSectionEditing: boolean | undefined;
}

/**
 * Checks `embedToken` against the rest of the configuration; a caller mistake throws a
 * `TypeError` naming the option (never quoting the key).
 */
export function resolveEmbedTokenSettings(options: EmbedTokenOptions, tokenTtlSeconds: number, upstream: UserGroupUpstream): EmbedTokenSettings {
  if (typeof options !== 'object' || options === null) throw new TypeError('embedToken must be an object { keyId, key, dashboards?, mint? }');
  const { keyId, key, dashboards, mint = 'local', disableEditableSectionEditing } = options;
  if (disableEditableSectionEditing !== undefined && typeof disableEditableSectionEditing !== 'boolean') {
    throw new TypeError('embedToken.disableEditableSectionEditing must be a boolean');
  }
  if (!isExploEmbedKeyId(keyId)) throw new TypeError('embedToken.keyId must be 1-128 visible ASCII characters without spaces or ":"');
  if (mint !== 'local' && mint !== 'vendor') throw new TypeError('embedToken.mint must be "local" or "vendor"');
  if (mint === 'vendor' && (typeof upstream.generateJwt !== 'function' || (upstream.api !== undefined && upstream.api !== 'explo-customer'))) {
    throw new TypeError(
      `embedToken.mint "vendor" needs an upstream with generateJwt: a UserGroupClient with api: 'explo-customer' (this one speaks ${upstream.api ?? 'an API without generate_jwt'})`,
    );
  }
  if (key === undefined && mint === 'local') throw new TypeError('embedToken.key is required to mint embed tokens (the embed secret value)');
  let bytes: Uint8Array | undefined;
  try {
    bytes = key === undefined ? undefined : exploEmbedKey(key);
  } catch (error) {
    // eslint-disable-next-line preserve-caught-error -- the cause may hold the key's value; the message says what is wrong with it.
    throw new TypeError(`embedToken.key: ${(error as Error).message} (value not shown)`);
  }
  if (dashboards !== undefined && (!Array.isArray(dashboards) || dashboards.length === 0 || !dashboards.every(isDashboardId))) {
    throw new TypeError('embedToken.dashboards must be a non-empty list of dashboard ids (1-128 of A-Z a-z 0-9 _ -)');
  }
  if (!(tokenTtlSeconds > 0)) throw new TypeError('tokenTtlSeconds must be above 0 with embedToken: an embed token always expires');
  return { keyId, key: bytes, dashboards: dashboards && new Set(dashboards), mint, ttlSeconds: tokenTtlSeconds, disableEditableSectionEditing };
}
