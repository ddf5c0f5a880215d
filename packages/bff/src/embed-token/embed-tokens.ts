import type { TokenResponse } from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import { BffError } from '../errors/bff-error.js';
import type { TokenService } from '../tokens/token-service.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { MintEmbedToken } from './local-minter.js';
import type { EmbedTokenSettings } from './settings.js';

/**
 * The token routes in embed-token mode. Per customer, everything the customer-token mode does
 * still happens (get-or-create, drift sync, the vendor budget, the fleet's store): the token
 * service keeps the customer synced and its token in the store, and a synced customer costs no
 * vendor call. Then an embed token is minted for the session's customer and the dashboard the
 * request names. The customer token is read from the service's answer and dropped: it never
 * leaves the BFF (no body, claim, log line or error carries it). A renewal (`/token/rotate`) is
 * a new mint, never a vendor rotation: embed tokens expire by themselves, and the customer token
 * they stand on was never exposed, so there is nothing to rotate away.
 */
export class EmbedTokens {
  readonly #settings: EmbedTokenSettings;
  readonly #service: TokenService;
  readonly #mint: MintEmbedToken;

  constructor(settings: EmbedTokenSettings, service: TokenService, mint: MintEmbedToken) {
    this.#settings = settings;
    this.#service = service;
    this.#mint = mint;
  }

  /** An embed token for `caller`'s customer and `dashboard`, for a page of `pageOrigin`. */
  token(caller: Caller, dashboard: string | undefined, pageOrigin: string | undefined): MaybePromise<TokenResponse> {
    const allowed = this.#settings.dashboards;
    if (dashboard === undefined) throw new BffError('bad_request', 'the body must name the dashboard: {"dashboard": "<embed id>"} (an embed token is for one dashboard)');
    if (allowed !== undefined && !allowed.has(dashboard)) throw new BffError('forbidden', `dashboard "${dashboard}" is not one this BFF embeds`);
    const customer = caller.group.group.user_group_id;
    return andThen(this.#service.token(caller.group), () => this.#mint({ customer, dashboard, pageOrigin }));
  }
}
