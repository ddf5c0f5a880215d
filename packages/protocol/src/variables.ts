/**
 * Dashboard variables of every documented shape (packages/protocol/README.md, "Variables"):
 * strings, numbers, booleans, null, arrays (multi-select) and JSON objects, each a JSON value
 * within `VARIABLE_LIMITS`. One table, used by the element (attribute, property, frame messages)
 * and by the emulator's dashboard page alike.
 */

/** A dashboard variable's value: any JSON value (a multi-select's is an array). */
export type VariableValue = string | number | boolean | null | VariableValue[] | { [key: string]: VariableValue };
export type DashboardVariables = Record<string, VariableValue>;

/** The bounds every variables object is held to, by name (the names appear in the error messages). */
export interface VariableLimits {
  /** Variables in one object. */
  readonly maxVariables: number;
  /** Characters of a variable's name. */
  readonly maxNameLength: number;
  /** Nesting of arrays and objects inside one value (a multi-select's array is depth 1). */
  readonly maxDepth: number;
  /** Items of one array, keys of one object. */
  readonly maxArrayLength: number;
  /** Characters of one string (a value or an object key). */
  readonly maxStringLength: number;
  /** Characters of the whole object as JSON: what travels in the iframe URL's query. */
  readonly maxEncodedLength: number;
}

/** The limits: a URL of a few kB loads everywhere; a dashboard control holds no more. */
export const VARIABLE_LIMITS: VariableLimits = Object.freeze({
  maxVariables: 100,
  maxNameLength: 200,
  maxDepth: 4,
  maxArrayLength: 500,
  maxStringLength: 2000,
  maxEncodedLength: 8000,
});

/**
 * Why `variables` is not a variables object within `limits`, in words naming the limit; or
 * `undefined` when it is one. Refuses anything that is not JSON (`undefined`, functions,
 * `NaN`/`Infinity`, class instances such as `Date`), cycles, and the keys `__proto__`,
 * `constructor` and `prototype` at any depth. Never throws. Self-contained (the emulator's page
 * inlines it as source text), so it reaches nothing outside its parameters.
 *
 * @example
 * variablesProblem({ regions: ['EU', 'US'] }, VARIABLE_LIMITS) // undefined
 * variablesProblem({ a: NaN }, VARIABLE_LIMITS) // 'variables: a is not a JSON value'
 */
export function variablesProblem(variables: unknown, limits: VariableLimits): string | undefined {
  const plain = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v) && [Object.prototype, null].includes(Object.getPrototypeOf(v) as object | null);
  const forbidden = (key: string) => key === '__proto__' || key === 'constructor' || key === 'prototype';
  if (!plain(variables)) return 'variables must be a JSON object';
  const names = Object.keys(variables);
  if (names.length > limits.maxVariables) return `variables: more than ${limits.maxVariables} variables (maxVariables)`;
  const check = (value: unknown, path: string, depth: number): string | undefined => {
    if (value === null || typeof value === 'boolean') return undefined;
    if (typeof value === 'number') return Number.isFinite(value) ? undefined : `variables: ${path} is not a JSON value`;
    if (typeof value === 'string') {
      return value.length > limits.maxStringLength ? `variables: ${path} is longer than ${limits.maxStringLength} characters (maxStringLength)` : undefined;
    }
    const array = Array.isArray(value);
    if (!array && !plain(value)) return `variables: ${path} is not a JSON value`;
    if (depth >= limits.maxDepth) return `variables: ${path} is nested deeper than ${limits.maxDepth} levels (maxDepth)`;
    const keys = Object.keys(value);
    if (keys.length > limits.maxArrayLength) return `variables: ${path} has more than ${limits.maxArrayLength} items (maxArrayLength)`;
    for (const key of keys) {
      if (!array && forbidden(key)) return `variables: ${path} has the key ${key}, which is not allowed`;
      if (key.length > limits.maxStringLength) return `variables: ${path} has a key longer than ${limits.maxStringLength} characters (maxStringLength)`;
      const problem = check((value as Record<string, unknown>)[key], array ? `${path}[${key}]` : `${path}.${key}`, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  };
  for (const name of names) {
    if (forbidden(name)) return `variables: the name ${name} is not allowed`;
    if (name.length < 1 || name.length > limits.maxNameLength) return `variables: a name must be 1-${limits.maxNameLength} characters (maxNameLength)`;
    const problem = check(variables[name], name, 0);
    if (problem) return problem;
  }
  return JSON.stringify(variables).length > limits.maxEncodedLength
    ? `variables: more than ${limits.maxEncodedLength} characters as JSON (maxEncodedLength)`
    : undefined;
}

/** A deep copy of checked variables: what a reader gets, never a live reference to state. */
export const copyVariables = (variables: DashboardVariables): DashboardVariables => JSON.parse(JSON.stringify(variables)) as DashboardVariables;
