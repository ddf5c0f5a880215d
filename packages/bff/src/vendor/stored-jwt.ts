import { decodeJwt } from 'jose';
import { reuseMinLeftMs, type TokenResponse } from '@embedded-dashboard/protocol';
import type { GroupEntry } from '../store/types.js';
import type { VendorContext } from './vendor-adapter.js';

/**
 * What every vendor whose per-customer credential is a JWT (Superset's guest tokens, Metabase's
 * signed embeds) does with the copy it keeps in the shared store: read it back only when it is
 * the same content (`fingerprint`) and a JWT with an `exp`, hand it out while the protocol's one
 * reuse rule allows, and answer it with that `exp` (never later).
 */

/** The token's own `exp` in epoch ms, when it is a JWT with one. */
export function jwtExpiresAt(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The stored entry at `key`, when it holds a JWT with an `exp` of exactly this content. */
export async function readStoredJwt(context: Pick<VendorContext, 'entries'>, key: string, fingerprint: string): Promise<GroupEntry | undefined> {
  const entry = await context.entries.read(key);
  return entry?.fingerprint === fingerprint && jwtExpiresAt(entry.token) !== undefined ? entry : undefined;
}

/** The token answer for a stored JWT: its own `exp`. */
export const storedJwtResponse = (entry: GroupEntry, now: number): TokenResponse => ({
  token: entry.token,
  expiresAt: jwtExpiresAt(entry.token)!,
  serverTime: now,
});

/** The lifetime a stored JWT was given (from when it was stored to its `exp`). */
export const storedJwtLifetimeMs = (entry: GroupEntry): number => jwtExpiresAt(entry.token)! - entry.firstSeenAt;

/** Whether a stored JWT may still be handed to another holder (the protocol's `reuseMinLeftMs`). */
export function isStoredJwtReusable(entry: GroupEntry, now: number): boolean {
  const leftMs = jwtExpiresAt(entry.token)! - now;
  return leftMs > 0 && leftMs >= reuseMinLeftMs(storedJwtLifetimeMs(entry));
}
