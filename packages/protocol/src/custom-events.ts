import { isRecord } from './guards.js';
import { variablesProblem, type VariableLimits, type VariableValue } from './variables.js';

/**
 * The dashboard's own events (ARCHITECTURE §6): any message from the verified frame whose name is
 * no lifecycle event, such as a JS Event Button's author-named event (`{ customerName,
 * customerProvidedId }`) or `analyticsEventFired` (packages/protocol/README.md, "Custom JS events").
 */

/** A JSON value: what a dashboard's own event may carry to the host page. */
export type JsonValue = VariableValue;

/** A dashboard's own event as the host receives it: a fresh copy, JSON values only. */
export interface DashboardCustomEventDetail {
  readonly name: string;
  readonly detail: JsonValue;
}

/** Characters of a custom event's name. */
export const MAX_CUSTOM_EVENT_NAME_LENGTH = 200;

/**
 * The bounds of a custom event's detail: 32,768 characters as JSON (at most 96 KiB as UTF-8),
 * nesting depth 8, 1,000 items or keys a level, 10,000 characters a string. Over any of them the
 * event is ignored whole.
 */
export const CUSTOM_EVENT_LIMITS: VariableLimits = Object.freeze({
  maxVariables: 1,
  maxNameLength: 6,
  maxDepth: 8,
  maxArrayLength: 1000,
  maxStringLength: 10_000,
  maxEncodedLength: 32_768,
});

/**
 * Untrusted `MessageEvent.data` as a dashboard's own event, or `undefined` (never throws): the
 * name must be a string of 1-200 characters that is not in `lifecycle` (the events the element
 * handles itself); the detail (absent: `null`) a JSON value within `CUSTOM_EVENT_LIMITS`, with no
 * `__proto__`, `constructor` or `prototype` key at any depth (structured-clone values such as
 * `Date` or `Map`, functions and cycles are refused). The detail returned is a deep copy.
 *
 * @example
 * parseCustomEvent({ event: 'exportClicked', detail: { customerName: 'Acme' } }, ['dashboardLoaded'])
 * // { name: 'exportClicked', detail: { customerName: 'Acme' } }
 */
export function parseCustomEvent(data: unknown, lifecycle: readonly string[]): DashboardCustomEventDetail | undefined {
  try {
    if (!isRecord(data)) return undefined;
    const { event: name, detail = null } = data;
    if (typeof name !== 'string' || !name || name.length > MAX_CUSTOM_EVENT_NAME_LENGTH || lifecycle.includes(name)) return undefined;
    if (variablesProblem({ detail }, CUSTOM_EVENT_LIMITS)) return undefined;
    return { name, detail: JSON.parse(JSON.stringify(detail)) as JsonValue };
  } catch {
    // A getter or proxy that throws: no event.
    return undefined;
  }
}
