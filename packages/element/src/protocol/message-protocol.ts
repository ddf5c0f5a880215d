import { DashboardEvent, HostEvent, parseDashboardMessage, resolveSrc } from '@embedded-dashboard/protocol';
import type { FrameProtocol } from './frame-protocol.js';

/**
 * Our own protocol (ARCHITECTURE §6): the token and variables go to the running frame by message.
 * It is no vendor's, so it lives beside the seam; the main entry registers it (the default
 * `protocol`), a vendor's own entry need not.
 */
export const messageProtocol: FrameProtocol = {
  swap: false,
  repeats: true,
  src: resolveSrc,
  lifecycle: Object.values(DashboardEvent),
  parse: parseDashboardMessage,
  token: (token) => ({ event: HostEvent.updateToken, detail: { token } }),
  variables: (variables) => ({ event: HostEvent.updateVariables, detail: { variables } }),
};
