/*
 * Configuration step 1 of 5 (environment text -> options; ARCHITECTURE §2.1): how a raw value is read.
 */

/**
 * Reading configuration values from a plain record: the CLI's environment (and `--config`
 * file), a Worker's bindings, a Lambda's environment. No `process`, no Node: the same rules on
 * every runtime.
 */

/** Reads one key: the trimmed value, or `undefined` when it is unset or blank. */
export type ConfigGet<K extends string> = (key: K) => string | undefined;

/** A value for the problem lines, cut short; never used for a secret. */
export const show = (value: string): string => JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);

/**
 * The reader of `record` (and, under it, `fallback`: the CLI's `--config` file) for `keys`.
 * Numbers and booleans (a Worker's JSON variables) are read as their text; a key holding
 * anything else (a binding of another kind, an object) is a problem, as is a secret with surrounding whitespace: trimming one
 * silently would make a key that works here differ from the one the vendor or the session
 * issuer holds. Secret values are never quoted back.
 */
export function configReader<K extends string>(
  record: Readonly<Record<string, unknown>>,
  keys: readonly K[],
  secretKeys: readonly K[],
  problems: string[],
  fallback: Partial<Record<K, string>> = {},
): ConfigGet<K> {
  const raw = (key: K): string | undefined => {
    const value = record[key];
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (value !== '' && typeof value === 'string') return value;
    return fallback[key];
  };
  for (const key of keys) {
    const value = record[key];
    if (value !== undefined && !['string', 'number', 'boolean'].includes(typeof value)) {
      problems.push(`${key} must be a text value (a variable or a secret), not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
    }
  }
  for (const key of secretKeys) {
    const value = raw(key);
    if (value !== undefined && value.trim() !== '' && value !== value.trim()) {
      problems.push(`${key} has leading or trailing whitespace (value not shown): remove it, secrets are used exactly as given`);
    }
  }
  return (key) => {
    const value = raw(key);
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
}

/** An http(s) URL, or `undefined`. */
export const httpUrl = (value: string): URL | undefined => {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

/** A comma list, trimmed, without empty items; `undefined` stays `undefined`. */
export const commaList = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean);
