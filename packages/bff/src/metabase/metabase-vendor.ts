import { claimsToCustomer } from '../session/claims.js';
import type { BffVendor, VendorAdapter } from '../vendor/vendor-adapter.js';
import { MetabaseGuestTokens } from './guest-tokens.js';
import { resolveMetabaseSettings, type MetabaseVendorOptions } from './options.js';

/**
 * Metabase guest embeds (signed, formerly "static") behind the BFF: `POST /embed/token` with
 * `{"dashboard": "7"}` (or `{"chart": "5"}` for a question) answers the signed embed token for the
 * session's customer, for that item only, its locked parameters rendered from the session's
 * claims; the element puts it in the frame URL (`src-template="https://mb.example.com/embed/dashboard/{token}"`).
 * The BFF signs with the instance's embedding secret: no request to Metabase, ever. Editable
 * parameters are not in the token: the element writes them into the frame URL's query string,
 * where Metabase takes them and refuses any for a locked or disabled parameter.
 *
 * @example
 * ```ts
 * import { createBffApp } from '@embedded-dashboard/bff';
 * import { metabaseVendor } from '@embedded-dashboard/bff/metabase';
 *
 * const app = createBffApp({
 *   session: { secret: process.env.EMBED_SESSION_SECRET!, cookie: 'session' },
 *   vendor: metabaseVendor({
 *     secret: process.env.EMBED_METABASE_SECRET!,
 *     params: { customer_id: '{org_id}' },
 *     dashboards: [7],
 *   }),
 * });
 * ```
 */
export function metabaseVendor(options: MetabaseVendorOptions): BffVendor {
  const settings = resolveMetabaseSettings(options);
  return {
    name: 'metabase',
    // No secret in a store key: a marker of the signing mode, the same for every instance it signs for.
    accountId: 'metabase-local',
    secrets: [options.secret],
    toGroup: (claims, names) => claimsToCustomer(claims, names),
    tokenLifetimeSeconds: settings.ttlSeconds,
    create(context): VendorAdapter {
      const tokens = new MetabaseGuestTokens(settings, context);
      return {
        name: 'metabase',
        // The timings reports' label values (ARCHITECTURE §4 "Timings"), as for Superset.
        dashboards: settings.dashboards,
        token: (caller, scope) => tokens.token(caller, scope),
        renew: (caller, scope, _pageOrigin, presented) => tokens.renew(caller, scope, presented),
      };
    },
  };
}
