import { EmulatorErrorCode, type DataSourceMapping, type UserGroupProperties } from '@embedded-dashboard/protocol';
import { EmulatorHttpError } from '../http/errors.js';
import type { GroupRequest, GroupUpdate } from '../store/group-store.js';

/** Longest accepted `name`, `user_group_id`, mapping key or value, in characters. */
const MAX_STRING_LENGTH = 256;
/** Most entries accepted in `mapping`. */
const MAX_MAPPING_ENTRIES = 100;
/** Longest accepted `current_token`; real tokens are far shorter. */
const MAX_TOKEN_LENGTH = 512;

const GROUP_FIELDS = new Set(['name', 'user_group_id', 'mapping', 'properties']);
const ROTATE_FIELDS = new Set(['current_token']);
const CUSTOMER_FIELDS = new Set(['provided_id', 'name', 'mapping', 'properties']);

const invalid = (message: string) => new EmulatorHttpError(EmulatorErrorCode.invalidField, message);

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function rejectUnknownFields(body: Record<string, unknown>, allowed: Set<string>): void {
  for (const key of Object.keys(body)) {
    if (!allowed.has(key)) throw invalid(`unknown field ${JSON.stringify(key.slice(0, 64))}; allowed: ${[...allowed].join(', ')}`);
  }
}

function requiredString(body: Record<string, unknown>, field: string, max: number): string {
  const value = body[field];
  if (value === undefined) throw invalid(`${field} is required`);
  if (typeof value !== 'string') throw invalid(`${field} must be a string`);
  if (value.trim() === '') throw invalid(`${field} must not be empty`);
  if (value.length > max) throw invalid(`${field} must be at most ${max} characters`);
  return value;
}

function optionalMapping(value: unknown): DataSourceMapping | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalid('mapping must be an object of strings');
  const entries = Object.entries(value);
  if (entries.length > MAX_MAPPING_ENTRIES) throw invalid(`mapping must have at most ${MAX_MAPPING_ENTRIES} entries`);
  // A null-prototype copy: a `__proto__` key stays an ordinary key.
  const mapping: DataSourceMapping = Object.create(null) as DataSourceMapping;
  for (const [key, item] of entries) {
    if (key === '' || key.length > MAX_STRING_LENGTH) throw invalid(`mapping keys must be 1 to ${MAX_STRING_LENGTH} characters`);
    if (typeof item !== 'string') throw invalid(`mapping.${key.slice(0, 64)} must be a string`);
    if (item.length > MAX_STRING_LENGTH) throw invalid(`mapping values must be at most ${MAX_STRING_LENGTH} characters`);
    mapping[key] = item;
  }
  return mapping;
}

function optionalProperties(value: unknown): UserGroupProperties | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalid('properties must be an object');
  return value;
}

/** Validates a get-or-create or update body (already a parsed JSON object). */
export function parseGroupRequest(body: Record<string, unknown>): GroupRequest {
  rejectUnknownFields(body, GROUP_FIELDS);
  return {
    userGroupId: requiredString(body, 'user_group_id', MAX_STRING_LENGTH),
    name: requiredString(body, 'name', MAX_STRING_LENGTH),
    mapping: optionalMapping(body.mapping),
    properties: optionalProperties(body.properties),
  };
}

/** Validates a rotate body and returns `current_token`. */
export function parseRotateRequest(body: Record<string, unknown>): string {
  rejectUnknownFields(body, ROTATE_FIELDS);
  return requiredString(body, 'current_token', MAX_TOKEN_LENGTH);
}

/**
 * Validates a Customer API create_customer body. The emulator implements the four fields the
 * client sends; the vendor's other documented fields (emails, group_tags, …) are refused by name
 * rather than silently dropped.
 */
export function parseCustomerRequest(body: Record<string, unknown>): GroupRequest {
  const update = parseCustomerUpdate(body);
  return { ...update, name: requiredString(body, 'name', MAX_STRING_LENGTH) };
}

/**
 * Validates an update_customer body: as the vendor's Update Customer page says, `provided_id` is
 * required and only the other fields given are updated (`name` too may be left out).
 */
export function parseCustomerUpdate(body: Record<string, unknown>): GroupUpdate {
  rejectUnknownFields(body, CUSTOMER_FIELDS);
  return {
    userGroupId: requiredString(body, 'provided_id', MAX_STRING_LENGTH),
    name: body.name === undefined ? undefined : requiredString(body, 'name', MAX_STRING_LENGTH),
    mapping: optionalMapping(body.mapping),
    properties: optionalProperties(body.properties),
  };
}
