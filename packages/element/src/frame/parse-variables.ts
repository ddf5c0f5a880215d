import { VARIABLE_LIMITS, copyVariables, variablesProblem, type DashboardVariables } from '@embedded-dashboard/protocol';

/**
 * Reads the `variables` attribute (a JSON object) or an object set as the property: every
 * documented shape (strings, numbers, booleans, null, arrays for multi-selects, JSON objects),
 * within `VARIABLE_LIMITS`. Empty means none. Returns a copy (later changes to the object set as
 * the property are not seen until it is set again). Throws an `Error` naming the limit or the
 * problem for anything else.
 *
 * @example
 * parseVariables('{"regions":["EU","US"]}') // { regions: ['EU', 'US'] }
 */
export function parseVariables(value: string | DashboardVariables | undefined | null): DashboardVariables {
  if (!value) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new Error('variables must be JSON');
    }
  }
  const problem = variablesProblem(parsed, VARIABLE_LIMITS);
  if (problem) throw new Error(problem);
  return copyVariables(parsed as DashboardVariables);
}

/**
 * `current` with `name` set to `value` (a value the frame's parser already checked), as a new
 * object with `name` an own property; `undefined` when one more variable puts the whole over a
 * limit (the update is then ignored, not half applied).
 */
export function updateVariable(current: DashboardVariables, name: string, value: unknown): DashboardVariables | undefined {
  const next = copyVariables(current);
  Object.defineProperty(next, name, { value, enumerable: true, writable: true, configurable: true });
  return variablesProblem(next, VARIABLE_LIMITS) ? undefined : next;
}
