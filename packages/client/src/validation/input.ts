import { GENERATE_JWT_FIELDS, MAX_USER_GROUP_TOKEN_CHARS, type ExploGenerateJwtInput, type UserGroupInput } from '@embedded-dashboard/protocol';

/** Request bodies above this are a caller bug, refused before anything is sent. */
const MAX_REQUEST_BYTES = 256 * 1024;

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v) as unknown;
  return proto === Object.prototype || proto === null;
};

function serialize(method: string, value: unknown): string {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch {
    throw new TypeError(`${method}: input must be JSON-serialisable (no cycles, no BigInt)`);
  }
  if (new TextEncoder().encode(json).length > MAX_REQUEST_BYTES) {
    throw new TypeError(`${method}: request body exceeds ${MAX_REQUEST_BYTES} bytes`);
  }
  return json;
}

/**
 * Checks a caller's get-or-create / update input and returns the JSON body to send.
 * Only the four documented fields travel (named as the API profile names them); anything else
 * on the object is left behind. `mapping` may be absent: the profile decides what that sends.
 */
export function userGroupBody(
  method: string,
  input: unknown,
  toWire: (input: UserGroupInput) => Record<string, unknown>,
): { body: string; input: UserGroupInput } {
  if (!isPlainObject(input)) throw new TypeError(`${method}: input must be an object`);
  const { name, user_group_id: id, mapping, properties } = input;
  if (typeof name !== 'string' || name.length === 0) throw new TypeError(`${method}: "name" must be a non-empty string`);
  if (typeof id !== 'string' || id.length === 0) throw new TypeError(`${method}: "user_group_id" must be a non-empty string`);
  if (mapping !== undefined) {
    if (!isPlainObject(mapping)) throw new TypeError(`${method}: "mapping" must be an object or absent`);
    for (const value of Object.values(mapping)) {
      if (typeof value !== 'string') throw new TypeError(`${method}: "mapping" values must be strings`);
    }
  }
  if (!isPlainObject(properties)) throw new TypeError(`${method}: "properties" must be an object`);
  const clean: UserGroupInput = { name, user_group_id: id, properties, ...(mapping !== undefined && { mapping: mapping as Record<string, string> }) };
  return { body: serialize(method, toWire(clean)), input: clean };
}

/** Checks the token to rotate and returns the JSON body to send. */
export function rotateBody(method: string, currentToken: unknown): string {
  if (typeof currentToken !== 'string' || currentToken.length === 0 || currentToken.length > MAX_USER_GROUP_TOKEN_CHARS) {
    throw new TypeError(`${method}: currentToken must be a non-empty string of at most ${MAX_USER_GROUP_TOKEN_CHARS} characters`);
  }
  return serialize(method, { current_token: currentToken });
}

/** `undefined`, `null`, or what `check` accepts; else a `TypeError` naming the field. */
function nullable(method: string, input: Record<string, unknown>, field: string, check: (v: unknown) => boolean, expected: string): void {
  const value = input[field];
  if (value !== undefined && value !== null && !check(value)) throw new TypeError(`${method}: "${field}" must be ${expected}, null or absent`);
}

const isText = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 256;

/**
 * Checks a caller's `generate_jwt` input and returns the JSON body to send: the documented fields
 * only (packages/protocol, `ExploGenerateJwtInput`), each of its documented type.
 */
export function generateJwtBody(method: string, input: unknown): { body: string; input: ExploGenerateJwtInput } {
  if (!isPlainObject(input)) throw new TypeError(`${method}: input must be an object`);
  if (!isText(input.provided_id)) throw new TypeError(`${method}: "provided_id" must be a string of 1 to 256 characters`);
  if (!isText(input.embed_id)) throw new TypeError(`${method}: "embed_id" must be a string of 1 to 256 characters`);
  nullable(method, input, 'key_id', isText, 'a string');
  nullable(method, input, 'expiration', (v) => typeof v === 'string' && /^P[\dWDTHMS.,]{2,40}$/.test(v), 'an ISO-8601 duration such as "PT1H"');
  nullable(method, input, 'chart_id', isText, 'a string');
  nullable(method, input, 'rb_allowed_features', (v) => Array.isArray(v) && v.length <= 16 && v.every(isText), 'a list of strings');
  nullable(method, input, 'disable_editable_section_editing', (v) => typeof v === 'boolean', 'a boolean');
  nullable(method, input, 'embed_origin', (v) => typeof v === 'string' && /^https?:\/\/[^/\s]{1,253}\/$/.test(v), "an origin with the trailing '/'");
  const clean: Record<string, unknown> = {};
  for (const field of GENERATE_JWT_FIELDS) if (input[field] !== undefined) clean[field] = input[field];
  return { body: serialize(method, clean), input: clean as unknown as ExploGenerateJwtInput };
}
