import type { TokenRequest, TokenResponse } from '@embedded-dashboard/protocol';
import type { Caller } from '../../caller/caller.js';
import { BffError } from '../../errors/bff-error.js';
import type { TokenService } from '../../customer-token/token-service.js';
import { andThen, type MaybePromise } from '../../util/maybe-promise.js';
import type { EmbedTokenMinter, EmbedTokenRequest } from './local-minter.js';
import type { EmbedTokenSettings } from './settings.js';

/** The 400 for `chart` where the BFF cannot honour it, saying what to configure. */
export const CHART_NEEDS_VENDOR_MINT =
  '"chart" (a single-chart embed) needs embed tokens minted by the vendor: set EMBED_JWT_KEY_ID, EMBED_UPSTREAM_API=explo-customer and EMBED_JWT_MINT=vendor (embedToken.mint: "vendor"); the vendor\'s docs name no claim for a chart in a token the BFF mints itself';

/**
 * The token routes in embed-token mode. Per customer, everything the customer-token mode does
 * still happens (get-or-create, drift sync, the vendor budget, the fleet's store): the token
 * service keeps the customer synced and its token in the store, and a synced customer costs no
 * vendor call. Then an embed token for the session's customer and the dashboard the request
 * names comes from the minter: made in this process (`mint: 'local'`) or the vendor's, shared
 * until near its expiry (`mint: 'vendor'`). The customer token is read from the service's answer
 * and dropped: it never leaves the BFF (no body, claim, log line or error carries it). A renewal
 * (`/token/rotate`) never rotates the customer token at the vendor: embed tokens expire by
 * themselves, and the customer token they stand on was never exposed.
 */
export class EmbedTokens {
  readonly #settings: EmbedTokenSettings;
  readonly #service: TokenService;
  readonly #minter: EmbedTokenMinter;

  constructor(settings: EmbedTokenSettings, service: TokenService, minter: EmbedTokenMinter) {
    this.#settings = settings;
    this.#service = service;
    this.#minter = minter;
  }

  /** The dashboards an embed token may name (`embedToken.dashboards`), or `undefined`: any. */
  get dashboards(): ReadonlySet<string> | undefined {
    return this.#settings.dashboards;
  }

  /** An embed token for `caller`'s customer and `scope` (a dashboard, maybe one chart of it), for a page of `pageOrigin` (`POST /token`). */
  token(caller: Caller, scope: TokenRequest, pageOrigin: string | undefined): MaybePromise<TokenResponse> {
    const request = this.#request(caller, scope, pageOrigin);
    return andThen(this.#service.token(caller.group), () => this.#minter.token(request));
  }

  /** A new embed token for the holder of `presented`, due or refused (`POST /token/rotate`). */
  renew(caller: Caller, scope: TokenRequest, pageOrigin: string | undefined, presented: string): MaybePromise<TokenResponse> {
    const request = this.#request(caller, scope, pageOrigin);
    return andThen(this.#service.token(caller.group), () => this.#minter.renew(request, presented));
  }

  #request(caller: Caller, { dashboard, chart }: TokenRequest, pageOrigin: string | undefined): EmbedTokenRequest {
    const allowed = this.#settings.dashboards;
    if (dashboard === undefined)
      throw new BffError('bad_request', 'the body must name the dashboard: {"dashboard": "<embed id>"} (an embed token is for one dashboard)');
    if (allowed !== undefined && !allowed.has(dashboard)) throw new BffError('forbidden', `dashboard "${dashboard}" is not one this BFF embeds`);
    if (chart !== undefined && this.#settings.mint !== 'vendor') throw new BffError('bad_request', CHART_NEEDS_VENDOR_MINT);
    return {
      customer: caller.group.group.user_group_id,
      groupKey: caller.group.key,
      dashboard,
      chart,
      disableEditableSectionEditing: this.#settings.disableEditableSectionEditing,
      pageOrigin,
    };
  }
}
