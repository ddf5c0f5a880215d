import { exploSrc, parseDashboardMessage, type DashboardEvent, type ExploFrameEvent, type ExploHostEvent } from '@embedded-dashboard/protocol';
import type { FrameProtocol } from '../protocol/frame-protocol.js';

/**
 * The vendor's frame events and our names for them (ARCHITECTURE §6): `dashboardReadyToLoad` and
 * `dashboardLoaded` have our names and detail shapes, the other three are renamed. Any other name,
 * ours included, is not the vendor's. Names are checked against packages/protocol's
 * `ExploFrameEvent` (which cites the doc pages) by type only, so the bundle carries each once.
 */
const OURS: Readonly<Record<string, DashboardEvent>> = {
  dashboardReadyToLoad: 'dashboardReadyToLoad',
  dashboardLoaded: 'dashboardLoaded',
  dashboardUpdated: 'dashboardResized',
  sendVariableUpdatedEvent: 'variableUpdated',
  customerJwtExpired: 'tokenExpired',
} satisfies Record<ExploFrameEvent, DashboardEvent>;
const UPDATE_VARIABLES: ExploHostEvent = 'updateExploDashboardVariables';

/**
 * The vendor's documented iframe embed: the customer token is in the URL path
 * (`…/iframe/{dashboard}/{token}/{environment}`), variables are JSON values in the query
 * (`?region="EU"`), and later variable changes go by `updateExploDashboardVariables`.
 */
export const exploProtocol: FrameProtocol = {
  swap: true,
  src: exploSrc,
  lifecycle: Object.keys(OURS),
  parse(data) {
    const event = (data as { event?: string } | null)?.event as string;
    // Own keys only: an event named "__proto__" is not a vendor event.
    const ours = Object.hasOwn(OURS, event) && OURS[event];
    // The expiry event's detail is not documented: only its name counts.
    return ours
      ? parseDashboardMessage({ event: ours, detail: ours === 'tokenExpired' ? { dashboardId: '' } : (data as { detail?: unknown }).detail })
      : undefined;
  },
  variables: (variables) => ({
    event: UPDATE_VARIABLES,
    detail: { variables: Object.keys(variables).map((varName) => ({ varName, value: variables[varName] })) },
  }),
};
