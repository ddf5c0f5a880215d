import { defineEmbeddedDashboard } from './define.js';
import type { EmbeddedDashboard } from './embedded-dashboard.js';
import { FrameController } from './frame/frame-controller.js';
import { parseVariables, updateVariable } from './frame/parse-variables.js';
import { messageProtocol } from './protocol/message-protocol.js';
import { exploJwtProtocol } from './explo/explo-jwt-protocol.js';
import { exploProtocol } from './explo/explo-protocol.js';

export { EmbeddedDashboard, FRAME_PROTOCOLS } from './embedded-dashboard.js';
export type { FrameProtocol } from './protocol/frame-protocol.js';
export { TAG_NAME } from './define.js';
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

declare global {
  interface HTMLElementTagNameMap {
    'embedded-dashboard': EmbeddedDashboard;
  }
}

// The only side effect of importing this package: our own protocol (the default) and Explo's two.
defineEmbeddedDashboard({ message: messageProtocol, explo: exploProtocol, 'explo-jwt': exploJwtProtocol }, FrameController, {
  parse: parseVariables,
  update: updateVariable,
});
