import type { DashboardCustomEventDetail, VariableValue } from '@embedded-dashboard/protocol';
import type { TokenReason } from './token/request-token.js';

/** `dashboard-load`: the dashboard finished loading. */
export type DashboardLoadEvent = CustomEvent<{ readonly dashboardId: string; readonly height: number; readonly loadTime: number }>;
/** `dashboard-token`: a token was obtained and handed to the dashboard (the token itself is never in the event). */
export type DashboardTokenEvent = CustomEvent<{ readonly reason: TokenReason; readonly expiresAt: number | null }>;
/** `dashboard-error`: invalid attributes or a failed token request; `retryable` says whether the element keeps trying. */
export type DashboardErrorEvent = CustomEvent<{ readonly code: string; readonly message: string; readonly retryable: boolean }>;
/** `dashboard-resize`: the dashboard reported a new content height (CSS px). */
export type DashboardResizeEvent = CustomEvent<{ readonly height: number }>;
/** `dashboard-variable-change`: the viewer changed a dashboard variable. */
export type DashboardVariableChangeEvent = CustomEvent<{ readonly name: string; readonly value: VariableValue }>;
/**
 * `dashboard-custom-event`: the dashboard's own event (a JS Event Button's, `analyticsEventFired`):
 * its `name` and `detail`, a JSON value copied from the frame's message.
 */
export type DashboardCustomEvent = CustomEvent<DashboardCustomEventDetail>;

/** Every event of `<embedded-dashboard>` by name. */
export interface EmbeddedDashboardEventMap {
  'dashboard-load': DashboardLoadEvent;
  'dashboard-token': DashboardTokenEvent;
  'dashboard-error': DashboardErrorEvent;
  'dashboard-resize': DashboardResizeEvent;
  'dashboard-variable-change': DashboardVariableChangeEvent;
  'dashboard-custom-event': DashboardCustomEvent;
}

/** Dispatches one of the element's events: bubbling and composed, so a page hears it through shadow roots. */
export const emit = <K extends keyof EmbeddedDashboardEventMap>(target: EventTarget, type: K, detail: EmbeddedDashboardEventMap[K]['detail']): boolean =>
  target.dispatchEvent(new CustomEvent(type, { detail, bubbles: true, composed: true }));

declare global {
  interface HTMLElementEventMap extends EmbeddedDashboardEventMap {}
}
