import type { DashboardVariables, UserGroupProperties } from '@embedded-dashboard/protocol';

/** More properties than this are not shown; the emulator's API bounds them anyway. */
const MAX_VARIABLES = 100;
const MAX_TEXT = 1000;

/**
 * A group's properties as dashboard variables: scalars as they are, anything else as JSON
 * text, everything bounded so a hostile group cannot make the page unbounded.
 */
export function propertiesToVariables(properties: UserGroupProperties): DashboardVariables {
  const variables: DashboardVariables = {};
  for (const [name, value] of Object.entries(properties).slice(0, MAX_VARIABLES)) {
    const key = name.slice(0, MAX_TEXT);
    if (value === null || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) {
      Object.defineProperty(variables, key, { value, enumerable: true, writable: true, configurable: true });
    } else {
      // JSON.stringify gives undefined only for a function, a symbol or undefined: their String() is shown.
      // eslint-disable-next-line @typescript-eslint/no-base-to-string
      const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
      Object.defineProperty(variables, key, { value: text.slice(0, MAX_TEXT), enumerable: true, writable: true, configurable: true });
    }
  }
  return variables;
}
