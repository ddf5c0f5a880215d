import { MAX_USER_GROUP_TOKEN_CHARS, type UserGroupInput } from '@embedded-dashboard/protocol';

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
 * on the object is left behind.
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
  if (!isPlainObject(mapping)) throw new TypeError(`${method}: "mapping" must be an object`);
  for (const value of Object.values(mapping)) {
    if (typeof value !== 'string') throw new TypeError(`${method}: "mapping" values must be strings`);
  }
  if (!isPlainObject(properties)) throw new TypeError(`${method}: "properties" must be an object`);
  const clean: UserGroupInput = { name, user_group_id: id, mapping: mapping as Record<string, string>, properties };
  return { body: serialize(method, toWire(clean)), input: clean };
}

/** Checks the token to rotate and returns the JSON body to send. */
export function rotateBody(method: string, currentToken: unknown): string {
  if (typeof currentToken !== 'string' || currentToken.length === 0 || currentToken.length > MAX_USER_GROUP_TOKEN_CHARS) {
    throw new TypeError(`${method}: currentToken must be a non-empty string of at most ${MAX_USER_GROUP_TOKEN_CHARS} characters`);
  }
  return serialize(method, { current_token: currentToken });
}
