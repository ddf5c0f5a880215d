/**
 * `import '@embedded-dashboard/element/superset'`: defines `<embedded-dashboard>` with Apache
 * Superset's protocol alone (`protocol="superset"`; no Explo code, and not our own `message`
 * protocol either: the main entry brings those), and gives it `getDataMask`, `getActiveTabs` and
 * `getDashboardPermalink`. With the main entry in the same page, both sets of protocols are known.
 */
import { defineEmbeddedDashboard, TAG_NAME } from './define.js';
import { ChannelFrames } from './frame/channel-frames.js';
import type { DashboardDataMaskEvent } from './superset/superset-methods.js';
import { addSupersetMethods } from './superset/superset-methods.js';
import { supersetProtocol } from './superset/superset-protocol.js';

export { EmbeddedDashboard, FRAME_PROTOCOLS } from './embedded-dashboard.js';
export { TAG_NAME } from './define.js';
export { DashboardState } from './state.js';
export { TokenRequestError } from './token/request-token.js';
export { FrameRequestError } from './protocol/frame-protocol.js';
export type { FrameProtocol } from './protocol/frame-protocol.js';
export type { TokenReason } from './token/request-token.js';
export type { FetchToken } from './token/token-controller.js';
export type { DashboardStrings } from './strings/strings.js';
export type { DashboardLoadEvent, DashboardTokenEvent, DashboardErrorEvent, DashboardResizeEvent, EmbeddedDashboardEventMap } from './events.js';
export { supersetProtocol, nextHeight, SUPERSET_REQUEST_TIMEOUT_MS, SUPERSET_HEIGHT_POLL_MS } from './superset/superset-protocol.js';
export type { SupersetDataMask, SupersetFilterMask, DashboardDataMaskEvent } from './superset/superset-methods.js';

declare global {
  interface HTMLElementEventMap {
    'dashboard-data-mask': DashboardDataMaskEvent;
  }
}

defineEmbeddedDashboard({ superset: supersetProtocol }, ChannelFrames);
addSupersetMethods(typeof customElements === 'undefined' ? undefined : customElements.get(TAG_NAME));
