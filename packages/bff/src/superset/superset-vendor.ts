import { claimsToCustomer } from '../session/claims.js';
import type { BffVendor, VendorAdapter } from '../vendor/vendor-adapter.js';
import { guestTokenRequest } from './guest-request.js';
import { supersetLocalSigner } from './local-signer.js';
import { resolveSupersetSettings, supersetTokenLifetimeSeconds, type SupersetVendorOptions } from './options.js';
import { SupersetServiceLogin } from './service-login.js';
import { SupersetVendorGuestTokens } from './vendor-guest-tokens.js';

/** The account id of a BFF that signs guest tokens itself: the audience and a digest-free marker (no secret in a store key). */
const LOCAL_ACCOUNT = (audience: string) => `superset-local:${audience}`.slice(0, 128);

/**
 * Apache Superset behind the BFF: `POST /embed/token` with `{"dashboard": "<embedded uuid>"}`
 * answers a guest token for the session's customer, for that dashboard only, with the
 * row-level security rules rendered from the session's claims. Guest tokens are minted by
 * Superset through its API (`client`: the service account signs in once per access token for
 * the fleet; each token is shared through the store until shortly before its `exp`), or signed
 * by the BFF with Superset's `GUEST_TOKEN_JWT_SECRET` (`guestTokenSecret`: no request to
 * Superset at all). The session names the customer by its group id claim (`org_id`); Explo's
 * name, properties and mapping claims are not needed.
 *
 * @example
 * ```ts
 * import { createBffApp } from '@embedded-dashboard/bff';
 * import { supersetVendor } from '@embedded-dashboard/bff/superset';
 *
 * const app = createBffApp({
 *   session: { secret: process.env.EMBED_SESSION_SECRET!, cookie: 'session' },
 *   vendor: supersetVendor({
 *     dashboards: ['0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0'],
 *     rls: 'customer_id = {org_id}',
 *     guestTokenSecret: process.env.EMBED_SUPERSET_GUEST_SECRET!,
 *     audience: 'superset',
 *   }),
 * });
 * ```
 */
export function supersetVendor(options: SupersetVendorOptions): BffVendor {
  const settings = resolveSupersetSettings(options);
  const { mint } = settings;
  return {
    name: 'superset',
    accountId: mint.kind === 'vendor' ? mint.client.accountId : LOCAL_ACCOUNT(mint.audience),
    secrets: mint.kind === 'local' ? [options.guestTokenSecret!] : [],
    toGroup: (claims, names) => claimsToCustomer(claims, names),
    tokenLifetimeSeconds: supersetTokenLifetimeSeconds(mint),
    create(context): VendorAdapter {
      if (mint.kind === 'local') {
        const sign = supersetLocalSigner(mint, context.now);
        return {
          name: 'superset',
          dashboards: settings.dashboards,
          token: (caller, scope) => sign(guestTokenRequest(settings, caller, scope)),
          renew: (caller, scope) => sign(guestTokenRequest(settings, caller, scope)),
        };
      }
      const tokens = new SupersetVendorGuestTokens(mint.client, new SupersetServiceLogin(mint.client, context), context);
      return {
        name: 'superset',
        dashboards: settings.dashboards,
        token: (caller, scope) => tokens.token(caller, guestTokenRequest(settings, caller, scope)),
        renew: (caller, scope, _pageOrigin, presented) => tokens.renew(caller, guestTokenRequest(settings, caller, scope), presented),
      };
    },
  };
}
