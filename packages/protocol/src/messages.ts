import { isRecord } from './guards.js';
import { VARIABLE_LIMITS, variablesProblem, type DashboardVariables, type VariableValue } from './variables.js';

/**
 * The element ↔ dashboard iframe protocol (ARCHITECTURE §6). Every message is
 * `{ event, detail }`; both sides check `event.origin` and `event.source` before trusting one.
 */

/** Events the dashboard iframe posts to its host page. */
export const DashboardEvent = {
  readyToLoad: 'dashboardReadyToLoad',
  loaded: 'dashboardLoaded',
  resized: 'dashboardResized',
  tokenExpired: 'tokenExpired',
  variableUpdated: 'variableUpdated',
} as const;
export type DashboardEvent = (typeof DashboardEvent)[keyof typeof DashboardEvent];

/** Events the host page posts to the dashboard iframe. */
export const HostEvent = {
  updateToken: 'updateToken',
  updateVariables: 'updateVariables',
} as const;
export type HostEvent = (typeof HostEvent)[keyof typeof HostEvent];

export type { DashboardVariables, VariableValue };

export interface DashboardMessageDetails {
  /** `dashboardHeight`: the height the dashboard will have, when it says so (the vendor's page does). */
  dashboardReadyToLoad: { dashboardId: string; dashboardHeight?: number };
  dashboardLoaded: { dashboardId: string; dashboardHeight: number; loadTime: number };
  dashboardResized: { dashboardHeight: number };
  tokenExpired: { dashboardId: string };
  variableUpdated: { varName: string; newValue: VariableValue };
}

export interface HostMessageDetails {
  updateToken: { token: string };
  updateVariables: { variables: DashboardVariables };
}

/** A message from the iframe, discriminated by `event`. */
export type DashboardMessage = {
  [E in keyof DashboardMessageDetails]: { event: E; detail: DashboardMessageDetails[E] };
}[keyof DashboardMessageDetails];

/** A message from the host page, discriminated by `event`. */
export type HostMessage = {
  [E in keyof HostMessageDetails]: { event: E; detail: HostMessageDetails[E] };
}[keyof HostMessageDetails];

/** Heights outside this range (CSS px) are absurd and ignored by auto-resize. */
export const MIN_DASHBOARD_HEIGHT = 1;
export const MAX_DASHBOARD_HEIGHT = 20_000;

const isHeight = (v: unknown): v is number => Number.isFinite(v);
/** A dashboard variable's value: any JSON value within `VARIABLE_LIMITS` (variables.ts). */
export const isVariableValue = (v: unknown): v is VariableValue => !variablesProblem({ v }, VARIABLE_LIMITS);

/** Each event's detail fields and their checks, in one table (the element's bundle counts every byte). */
const DETAIL_FIELDS: { readonly [E in DashboardEvent]: readonly (keyof DashboardMessageDetails[E])[] } = {
  dashboardReadyToLoad: ['dashboardId'],
  dashboardLoaded: ['dashboardId', 'dashboardHeight', 'loadTime'],
  dashboardResized: ['dashboardHeight'],
  tokenExpired: ['dashboardId'],
  variableUpdated: ['varName', 'newValue'],
};
/** A variable update within the limits as a whole: its name too (no `__proto__`, not too long). */
const isVariableUpdate = (detail: Record<string, unknown>) =>
  typeof detail.varName === 'string' && !variablesProblem({ [detail.varName]: detail.newValue }, VARIABLE_LIMITS);
const FIELD_CHECKS: Readonly<Record<string, (v: unknown) => boolean>> = {
  dashboardId: (v) => typeof v === 'string',
  varName: (v) => typeof v === 'string',
  dashboardHeight: isHeight,
  loadTime: isHeight,
  newValue: () => true,
};

/**
 * Validates untrusted `MessageEvent.data` from a dashboard iframe. Returns the typed message,
 * or `undefined` for anything malformed (never throws). Heights are checked for being finite
 * numbers only; clamping is the receiver's policy. Only the documented detail fields travel on.
 */
export function parseDashboardMessage(data: unknown): DashboardMessage | undefined {
  if (!isRecord(data) || !isRecord(data.detail)) return undefined;
  const { event, detail } = data;
  // Own keys only: an event named "__proto__" or "constructor" is no event.
  if (typeof event !== 'string' || !Object.hasOwn(DETAIL_FIELDS, event)) return undefined;
  if (event === DashboardEvent.variableUpdated && !isVariableUpdate(detail)) return undefined;
  const picked: Record<string, unknown> = {};
  for (const field of DETAIL_FIELDS[event as DashboardEvent] as readonly string[]) {
    if (!FIELD_CHECKS[field]!(detail[field])) return undefined;
    picked[field] = detail[field];
  }
  // Optional: a height announced before loading (the vendor's dashboardReadyToLoad carries one).
  if (event === DashboardEvent.readyToLoad && isHeight(detail.dashboardHeight)) picked.dashboardHeight = detail.dashboardHeight;
  return { event, detail: picked } as DashboardMessage;
}

/**
 * Validates untrusted `MessageEvent.data` from a host page. Returns the typed message, or
 * `undefined` for anything malformed (never throws).
 */
export function parseHostMessage(data: unknown): HostMessage | undefined {
  if (!isRecord(data) || typeof data.event !== 'string' || !isRecord(data.detail)) return undefined;
  const d = data.detail;
  switch (data.event) {
    case HostEvent.updateToken:
      return typeof d.token === 'string' && d.token.length > 0 ? { event: data.event, detail: { token: d.token } } : undefined;
    case HostEvent.updateVariables: {
      // Over a limit: the whole message is ignored, never half applied.
      if (variablesProblem(d.variables, VARIABLE_LIMITS)) return undefined;
      return { event: data.event, detail: { variables: d.variables as DashboardVariables } };
    }
    default:
      return undefined;
  }
}
