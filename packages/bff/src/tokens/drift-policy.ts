import type { UserGroup, UserGroupInput } from '@embedded-dashboard/protocol';
import type { GroupEntry } from '../store/types.js';
import { stableStringify } from './fingerprint.js';

/**
 * Which session's claims the vendor's copy of a group follows, and when it must be updated.
 *
 * - **The newest session decides.** Every sync records the `iat` of the session whose claims it
 *   wrote. A request from a session issued earlier than that (an old tab still signed in) whose
 *   claims differ is served the group's current token and rewrites nothing: otherwise old and new
 *   sessions would flip the group back and forth, and a stale session would re-apply outdated
 *   properties for everyone in that customer. A session without `iat` counts as issued at 0.
 * - **Drift on either side is corrected.** The group is updated when the session's input differs
 *   from what was last synced, and also when the group the vendor returns differs from the
 *   session (someone changed it at the vendor), whenever the vendor returns it.
 */
export const DriftPolicy = {
  /** Whether a request from `issuedAtMs`'s session may write its claims over the synced ones. */
  mayRewrite(entry: GroupEntry | undefined, issuedAtMs: number): boolean {
    return entry?.claimsIssuedAt === undefined || issuedAtMs >= entry.claimsIssuedAt;
  },

  /**
   * Whether the vendor's answer shows the group as the session wants it in every field it
   * returns: the name, and properties actually returned (a vendor that leaves them out proves
   * nothing). The mapping is never returned: see the token service for when this suffices.
   */
  answerMatches(vendor: UserGroup, input: UserGroupInput): boolean {
    if (vendor.name !== input.name || vendor.properties === undefined) return false;
    return stableStringify(vendor.properties ?? {}) === stableStringify(input.properties);
  },

  /** Whether the vendor's copy (as get-or-create returned it) differs from the session's input. */
  vendorDiffers(vendor: UserGroup, input: UserGroupInput): boolean {
    if (vendor.name !== input.name) return true;
    // The vendor may not return properties (then only the fingerprint tells); `null` is none.
    if (vendor.properties === undefined) return false;
    return stableStringify(vendor.properties ?? {}) !== stableStringify(input.properties);
  },
} as const;
