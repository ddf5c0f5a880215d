import type { Context } from 'hono';
import type { UserGroupInput } from '@embedded-dashboard/protocol';

/** Who is asking: the user group the caller's session belongs to. */
export interface EmbedIdentity {
  /** The group input sent to the vendor. Comes only from the verified session, never the request body. */
  group: UserGroupInput;
  /** Groups callers for per-session rate limits; defaults to the group id. Must not be a secret. */
  sessionKey?: string;
  /**
   * When the session was issued (its `iat`, epoch **seconds**). The newest session's claims are
   * the ones the vendor's group follows; an older session is served the token without rewriting
   * the group, and of two issued at the same time the one with the greater claims fingerprint
   * wins. Unset: issued now (the hook's answer is read afresh on every request, so its latest
   * answer wins). More than 60 s ahead of the server's clock (milliseconds, say) is a 500.
   */
  issuedAt?: number;
  /**
   * The verified session's claims, for what a vendor is told about the caller besides its group
   * (Superset's guest user and row-level security). Set by session verification; a hook may set
   * it. Unset: none (a template over claims then refuses the caller).
   */
  claims?: Readonly<Record<string, unknown>>;
}

/**
 * Replaces session-JWT verification: return the caller's identity, or `null` for "not signed
 * in" (401). Called on every token request, so cache anything expensive yourself. The group is
 * read afresh on every request (returning one object with changed contents is fine).
 *
 * @example
 * ```ts
 * const identify: IdentifyFunction = async (c) => {
 *   const user = await sessions.fromCookie(c.req.header('cookie'));
 *   return user && { group: { user_group_id: user.orgId, name: user.orgName, properties: { region: user.region }, mapping: {} } };
 * };
 * ```
 */
export type IdentifyFunction = (c: Context) => EmbedIdentity | null | Promise<EmbedIdentity | null>;
