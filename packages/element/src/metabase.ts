/**
 * `import '@embedded-dashboard/element/metabase'`: defines `<embedded-dashboard>` with Metabase's
 * signed ("static", now "guest") embed alone (`protocol="metabase"`; no Explo or Superset code,
 * and not our own `message` protocol either: the main entry brings those). With another entry in
 * the same page, every entry's protocols are known.
 */
import { defineEmbeddedDashboard } from './define.js';
import { FrameController } from './frame/frame-controller.js';
import { parseVariables, updateVariable } from './frame/parse-variables.js';
import { metabaseProtocol, type MetabaseLocation } from './metabase/metabase-protocol.js';

export { EmbeddedDashboard, FRAME_PROTOCOLS } from './embedded-dashboard.js';
export { TAG_NAME } from './define.js';
export { DashboardState } from './state.js';
export { TokenRequestError } from './token/request-token.js';
export type { FrameProtocol } from './protocol/frame-protocol.js';
export type { TokenReason } from './token/request-token.js';
export type { FetchToken } from './token/token-controller.js';
export type { DashboardStrings } from './strings/strings.js';
export type { DashboardLoadEvent, DashboardTokenEvent, DashboardErrorEvent, DashboardResizeEvent, EmbeddedDashboardEventMap } from './events.js';
export { metabaseProtocol, METABASE_MAX_URL_LENGTH, METABASE_MAX_LOCATION_LENGTH } from './metabase/metabase-protocol.js';
export type { MetabaseLocation } from './metabase/metabase-protocol.js';

/** `dashboard-location`: the Metabase frame's URL changed (the viewer set a filter): `{ search, hash }` of its URL, never the token. */
export type DashboardLocationEvent = CustomEvent<MetabaseLocation>;

declare global {
  interface HTMLElementEventMap {
    'dashboard-location': DashboardLocationEvent;
  }
}

// Metabase's frame takes its token in the URL: the full frames controller (hidden-frame swap,
// window messages) and the variables' checks (editable parameters from `variables`).
defineEmbeddedDashboard({ metabase: metabaseProtocol }, FrameController, { parse: parseVariables, update: updateVariable });
