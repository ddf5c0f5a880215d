import { sha256 } from '#bff-platform';
import type { UserGroupInput } from '@embedded-dashboard/protocol';

// Sorted keys at every depth: the same input always gives the same text, whatever the claim order.
export function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const keys = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableStringify(record[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * SHA-256 of the parts of a group the integrator manages (name, properties, and the mapping when
 * given), key-order independent. When it differs from the one last synced, the group must be
 * updated.
 *
 * @example
 * ```ts
 * groupFingerprint({ user_group_id: 'acme', name: 'Acme', properties: { a: 1, b: 2 }, mapping: {} }) ===
 *   groupFingerprint({ user_group_id: 'acme', name: 'Acme', properties: { b: 2, a: 1 }, mapping: {} }); // true
 * ```
 */
export function groupFingerprint(group: UserGroupInput): string {
  const text = stableStringify({ name: group.name, properties: group.properties, mapping: group.mapping });
  return sha256(text, 'base64url');
}
