import type { ExploHostEvent } from '@embedded-dashboard/protocol';
import { exploProtocol } from './explo-protocol.js';
import type { FrameProtocol } from '../protocol/frame-protocol.js';

const UPDATE_JWT: ExploHostEvent = 'updateCustomerJwt';

/**
 * The vendor's embed-secret embed (packages/protocol/README.md, "Embed secrets"): an embed token
 * (a JWE the BFF mints for one customer and one dashboard) in the URL path where the dashboard id
 * and customer token go (`…/iframe/{token}/{environment}`), the vendor's messages as `explo`, and
 * every later token posted to the running frame as `updateCustomerJwt { jwt }`: the same frame,
 * the same `src`, no second load. Tokens are per dashboard, so token requests name it.
 */
export const exploJwtProtocol: FrameProtocol = {
  ...exploProtocol,
  swap: false,
  perDashboard: true,
  charts: true,
  token: (jwt) => ({ event: UPDATE_JWT, detail: { jwt } }),
};
