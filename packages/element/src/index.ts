import { EmbeddedDashboard } from './embedded-dashboard.js';

export { EmbeddedDashboard, FRAME_PROTOCOLS } from './embedded-dashboard.js';
export type { FrameProtocol } from './protocol/frame-protocol.js';
export { DashboardState } from './state.js';
export { TokenRequestError } from './token/request-token.js';
export type { TokenReason } from './token/request-token.js';
export type { FetchToken } from './token/token-controller.js';
export type { DashboardStrings } from './strings/strings.js';
export type {
  DashboardLoadEvent,
  DashboardTokenEvent,
  DashboardErrorEvent,
  DashboardResizeEvent,
  DashboardVariableChangeEvent,
  DashboardCustomEvent,
  EmbeddedDashboardEventMap,
} from './events.js';

/** The element's tag name. */
export const TAG_NAME = 'embedded-dashboard';

declare global {
  interface HTMLElementTagNameMap {
    'embedded-dashboard': EmbeddedDashboard;
  }
}

// The only side effect of importing this package; guarded so SSR and double loads do not throw.
if (typeof customElements !== 'undefined' && !customElements.get(TAG_NAME)) {
  customElements.define('embedded-dashboard', EmbeddedDashboard);
}
