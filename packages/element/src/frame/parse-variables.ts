import { isRecord, isVariableValue, type DashboardVariables } from '@embedded-dashboard/protocol';

/**
 * Reads the `variables` attribute (a JSON object of strings, finite numbers, booleans or null) or
 * an object set as the property. Empty means none. Throws an `Error` for anything else.
 *
 * @example
 * parseVariables('{"region":"EU"}') // { region: 'EU' }
 */
export function parseVariables(value: string | DashboardVariables | undefined | null): DashboardVariables {
  if (!value) return {};
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      parsed = 0;
    }
  }
  if (!isRecord(parsed) || !Object.values(parsed).every(isVariableValue)) {
    throw new Error('variables must be a flat JSON object');
  }
  return parsed as DashboardVariables;
}
