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
