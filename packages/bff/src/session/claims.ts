import type { DataSourceMapping, UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';

/** Which session claims carry the group input. */
export interface ClaimNames {
  /** Default `org_id`. */
  groupId?: string;
  /** Default `org_name`. */
  groupName?: string;
  /** Default `embed_properties`. */
  properties?: string;
  /** Default `embed_mapping`. */
  mapping?: string;
}

export const DEFAULT_CLAIM_NAMES: Required<ClaimNames> = {
  groupId: 'org_id',
  groupName: 'org_name',
  properties: 'embed_properties',
  mapping: 'embed_mapping',
};

const MAX_ID_LENGTH = 256;
const MAX_NAME_LENGTH = 256;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Whether `value` is a mapping of the spec: an object whose values are all strings. */
export function isDataSourceMapping(value: unknown): value is DataSourceMapping {
  return isPlainObject(value) && Object.values(value).every((v) => typeof v === 'string');
}

const refuse = (message: string) => new BffError('forbidden', message);

/** The group id claim, a safe integer read as its decimal string; missing or malformed refuses. */
function groupIdClaim(claims: Record<string, unknown>, claim: string): string {
  const rawId = claims[claim];
  if (rawId === undefined) throw refuse(`session has no "${claim}" claim`);
  const id = typeof rawId === 'number' && Number.isSafeInteger(rawId) ? String(rawId) : rawId;
  if (typeof id !== 'string' || id.trim() === '' || id.length > MAX_ID_LENGTH) {
    throw refuse(`session claim "${claim}" must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  return id;
}

/**
 * Maps verified session claims to the group input. Every field must be present and well typed
 * (the mapping alone is optional: it falls back to a static one, else the group's mapping is
 * not managed and the vendor's stays as it is): a group is never created or updated from a
 * half-filled input, since missing properties could widen what its dashboards show.
 */
export function claimsToGroupInput(claims: Record<string, unknown>, names: Required<ClaimNames>, staticMapping: DataSourceMapping | undefined): UserGroupInput {
  const id = groupIdClaim(claims, names.groupId);
  const name = claims[names.groupName];
  if (name === undefined) throw refuse(`session has no "${names.groupName}" claim`);
  if (typeof name !== 'string' || name.trim() === '' || name.length > MAX_NAME_LENGTH) {
    throw refuse(`session claim "${names.groupName}" must be a non-empty string of at most ${MAX_NAME_LENGTH} characters`);
  }
  const properties = claims[names.properties];
  if (properties === undefined) throw refuse(`session has no "${names.properties}" claim`);
  if (!isPlainObject(properties)) throw refuse(`session claim "${names.properties}" must be a JSON object`);
  const mapping = claims[names.mapping] ?? staticMapping;
  if (mapping === undefined) return { user_group_id: id, name, properties };
  if (!isDataSourceMapping(mapping)) throw refuse(`session claim "${names.mapping}" must be an object of strings`);
  return { user_group_id: id, name, properties, mapping };
}

/**
 * The customer alone from verified session claims, for a vendor that has no user groups to
 * sync (Superset, Metabase): the group id claim as for Explo, the name claim when the session
 * has one (else the id), no properties or mapping. What such a vendor is told besides comes
 * from its own templates over the claims.
 */
export function claimsToCustomer(claims: Record<string, unknown>, names: Required<ClaimNames>): UserGroupInput {
  const id = groupIdClaim(claims, names.groupId);
  const name = claims[names.groupName];
  return { user_group_id: id, name: typeof name === 'string' && name.trim() !== '' && name.length <= MAX_NAME_LENGTH ? name : id, properties: {} };
}

/** Checks a group input from an `identify` hook; a bad one is the integrator's bug (500). */
export function assertGroupInput(group: unknown): asserts group is UserGroupInput {
  const g = group as Partial<UserGroupInput> | null;
  const problem = !isPlainObject(g)
    ? 'is not an object'
    : typeof g.user_group_id !== 'string' || g.user_group_id.trim() === '' || g.user_group_id.length > MAX_ID_LENGTH
      ? 'has no valid user_group_id'
      : typeof g.name !== 'string' || g.name.trim() === '' || g.name.length > MAX_NAME_LENGTH
        ? 'has no valid name'
        : !isPlainObject(g.properties)
          ? 'has no properties object'
          : g.mapping !== undefined && !isDataSourceMapping(g.mapping)
            ? 'has a mapping that is not an object of strings'
            : undefined;
  if (problem !== undefined) throw new BffError('internal', 'internal error', { cause: new TypeError(`identify() returned a group that ${problem}`) });
}
