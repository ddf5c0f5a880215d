import type { UserGroup, UserGroupInput } from '@embedded-dashboard/protocol';
import type { GroupEntry } from '../store/types.js';
import { stableStringify } from './fingerprint.js';

/**
 * How far ahead of this server's clock a session's `iat` may be: a skewed identity provider's
 * clock, within reason. A session issued later than that is refused (401; an `identify()` answer,
 * 500), never ordered: its claims would outrank every correct session until the skew passed, or
 * for good (an `iat` in milliseconds). So no session holds its claims over later ones for longer.
 */
export const MAX_ISSUED_AT_SKEW_MS = 60_000;

/**
 * Where a session without `iat` stands: as if issued this long before its `exp`. Sessions of one
 * lifetime are then ordered by `exp` (the later login wins), and every session that has an `iat`
 * outranks every one without (no session lives ten years).
 */
export const WITHOUT_IAT_BEFORE_EXP_MS = 10 * 365 * 86_400_000;

/** The session whose claims a request carries, as ordered by the policy. */
interface ClaimsOf {
  fingerprint: string;
  /** The session's `iat` in epoch ms (see `ResolvedGroup.issuedAtMs`). */
  issuedAtMs: number;
}

/**
 * Which session's claims the vendor's copy of a group follows, and when it must be updated.
 *
 * - **The newest session decides.** Every sync records the `iat` of the session whose claims it
 *   wrote. A request from a session issued earlier than that (an old tab still signed in) whose
 *   claims differ is served the group's current token and rewrites nothing: otherwise old and new
 *   sessions would flip the group back and forth, and a stale session would re-apply outdated
 *   properties for everyone in that customer.
 * - **Equal `iat`: the greater claims fingerprint wins**, whichever came first and in every
 *   process, so two sessions issued in the same second never flip the group either. A session
 *   without `iat` is ordered by its `exp` (`WITHOUT_IAT_BEFORE_EXP_MS`); an `identify()` answer
 *   without `issuedAt` counts as issued when it is asked (the hook reads live data: its latest
 *   answer wins).
 * - **Drift on either side is corrected, in the fields the integrator manages only.** The group is
 *   updated when the session's input differs from what was last synced, and also when the group
 *   the vendor returns differs from the session (someone changed it at the vendor), whenever the
 *   vendor returns it. The name and properties are always managed; the mapping only when the
 *   session gives one (a mapping claim or `EMBED_MAPPING`): otherwise the vendor's mapping is
 *   neither compared nor written.
 */
export const DriftPolicy = {
  /** Whether a request carrying `claims` may write them over the ones synced in `entry`, at `nowMs`. */
  mayRewrite(entry: GroupEntry | undefined, claims: ClaimsOf, nowMs: number): boolean {
    const synced = DriftPolicy.syncedIssuedAt(entry, nowMs);
    if (synced === undefined || claims.issuedAtMs > synced) return true;
    return claims.issuedAtMs === synced && claims.fingerprint > entry!.fingerprint;
  },

  /**
   * The `iat` of the claims synced in `entry`, when it can order anything: an entry written
   * before it was recorded has none, and one beyond the skew (written before such sessions were
   * refused) orders nothing, so the next session's claims replace it.
   */
  syncedIssuedAt(entry: GroupEntry | undefined, nowMs: number): number | undefined {
    const synced = entry?.claimsIssuedAt;
    return synced === undefined || synced > nowMs + MAX_ISSUED_AT_SKEW_MS ? undefined : synced;
  },

  /**
   * Whether the vendor's answer shows the group as the session wants it in every managed field:
   * the name, properties actually returned (a vendor that leaves them out proves nothing), and a
   * managed mapping when the answer carries one (the Customer API's does; `/api/user`'s never: see
   * the token service for when that suffices).
   */
  answerMatches(vendor: UserGroup, input: UserGroupInput): boolean {
    if (vendor.name !== input.name || vendor.properties === undefined) return false;
    return stableStringify(vendor.properties ?? {}) === stableStringify(input.properties) && !mappingDiffers(vendor, input);
  },

  /** Whether the vendor's copy (as get-or-create returned it) differs from the session's input in a managed field. */
  vendorDiffers(vendor: UserGroup, input: UserGroupInput): boolean {
    if (vendor.name !== input.name || mappingDiffers(vendor, input)) return true;
    // The vendor may not return properties (then only the fingerprint tells); `null` is none.
    if (vendor.properties === undefined) return false;
    return stableStringify(vendor.properties ?? {}) !== stableStringify(input.properties);
  },
} as const;

/** A mapping the session manages that the answer shows otherwise; an unmanaged or unreturned mapping never differs. */
function mappingDiffers(vendor: UserGroup, input: UserGroupInput): boolean {
  if (input.mapping === undefined || vendor.mapping === undefined) return false;
  return stableStringify(vendor.mapping) !== stableStringify(input.mapping);
}
