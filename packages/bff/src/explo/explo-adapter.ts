import type { TokenRequest } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { CHART_NEEDS_VENDOR_MINT, type EmbedTokens } from './embed-token/embed-tokens.js';
import type { TokenService } from '../customer-token/token-service.js';
import type { VendorAdapter } from '../vendor/vendor-adapter.js';

/**
 * Explo behind the vendor seam, exactly as before it: with `embedToken`, embed tokens for the
 * session's customer and the dashboard the request names (`EmbedTokens`); without, the
 * customer's user group token itself (`TokenService`: get-or-create, drift sync, rotation).
 */
export function exploAdapter(service: TokenService, embedTokens: EmbedTokens | undefined): VendorAdapter {
  if (embedTokens !== undefined) {
    return {
      name: 'explo',
      dashboards: embedTokens.dashboards,
      token: (caller, scope, pageOrigin) => embedTokens.token(caller, scope, pageOrigin),
      renew: (caller, scope, pageOrigin, presented) => embedTokens.renew(caller, scope, pageOrigin, presented),
    };
  }
  return {
    name: 'explo',
    // A customer token is for every dashboard and chart: a single-chart token needs the vendor to mint embed tokens.
    checkScope: (scope: TokenRequest) => {
      if (scope.chart !== undefined) throw new BffError('bad_request', CHART_NEEDS_VENDOR_MINT);
    },
    token: (caller) => service.token(caller.group),
    renew: (caller, _scope, _pageOrigin, presented) => service.rotate(caller.group, presented),
  };
}
