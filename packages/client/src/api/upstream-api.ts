import { isUserGroupToken, MAX_USER_GROUP_TOKEN_CHARS } from '@embedded-dashboard/protocol';
import type {
  ExploGenerateJwtInput,
  ExploGenerateJwtResponse,
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UpstreamApiName,
  UserGroupInput,
} from '@embedded-dashboard/protocol';

/** Which operation a response answers, with what it needs to be checked against. */
export type Expectation =
  | { op: 'getOrCreate'; input: UserGroupInput }
  | { op: 'update'; input: UserGroupInput }
  | { op: 'rotate' }
  | { op: 'generateJwt'; input: ExploGenerateJwtInput };

export type ResponseFor<E extends Expectation['op']> = E extends 'getOrCreate'
  ? GetOrCreateUserGroupResponse
  : E extends 'update'
    ? UpdateUserGroupResponse
    : E extends 'rotate'
      ? RotateUserGroupTokenResponse
      : ExploGenerateJwtResponse;

export type Json = Record<string, unknown>;
export const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Raised inside the shape checks; becomes a `malformed_response` carrying the HTTP status. */
export class ShapeProblem extends Error {}

/**
 * One upstream API profile: where each operation goes, what its body looks like, and how its
 * answer maps to the client's typed results. The client's retries, deadline, redaction and
 * error mapping are shared; only this differs between vendors' APIs.
 */
export interface UpstreamApi {
  readonly name: UpstreamApiName;
  /** Path appended to the base URL that names this API (also part of `accountId`). */
  readonly root: string;
  /** Header carrying `Token <API_TOKEN>`. */
  readonly authHeader: string;
  /** Method and path (after `root`) of an operation. */
  route(op: Expectation['op']): { method: 'GET' | 'PUT' | 'POST'; path: string };
  /** Whether the API can mint embed tokens (`generateJwt`): the vendor's Customer API can, `/api/user` cannot. */
  readonly embedTokens: boolean;
  /** The JSON body of get-or-create and update. */
  groupBody(input: UserGroupInput): Json;
  /** A successful (`success: 1`) JSON answer as the typed result; throws {@link ShapeProblem}. */
  parse<E extends Expectation>(expectation: E, json: Json): ResponseFor<E['op']>;
}

/** A `generate_jwt` answer: the token, checked like every token handed on to browsers. */
export function generatedJwt(json: Json): ExploGenerateJwtResponse {
  const jwt = json.jwt;
  if (!isUserGroupToken(jwt) || jwt === '') throw new ShapeProblem(`"jwt" is not a token (at most ${MAX_USER_GROUP_TOKEN_CHARS} of A-Z a-z 0-9 - . _ ~)`);
  return { success: 1, jwt };
}

/** A different provided_id means the answer is about someone else's group: never hand it on. */
export function checkSameGroup(providedId: string, name: string, input: UserGroupInput, checkName: boolean, where: string): void {
  if (providedId !== input.user_group_id) throw new ShapeProblem(`"${where}.provided_id" does not match the requested user_group_id`);
  if (checkName && name !== input.name) throw new ShapeProblem(`"${where}.name" does not match the requested name`);
}

/** `properties` as documented: an object, null, or absent. */
export function optionalProperties(group: Json, where: string): { properties?: Record<string, unknown> | null } {
  if (!('properties' in group) || group.properties === undefined) return {};
  if (group.properties !== null && !isRecord(group.properties)) throw new ShapeProblem(`"${where}.properties" is neither an object nor null`);
  return { properties: group.properties };
}

/**
 * `parent_schema_datasource_mapping` as the group's `mapping` when the answer carries an object
 * of strings. Anything else (absent, null, or the numeric ids the vendor's own example shows) is
 * left out rather than refused: the answer then proves nothing about the mapping, and the BFF
 * only ever compares a mapping it manages with one it could read.
 */
export function optionalMapping(group: Json): { mapping?: Record<string, string> } {
  const mapping = group.parent_schema_datasource_mapping;
  if (!isRecord(mapping) || !Object.values(mapping).every((v) => typeof v === 'string')) return {};
  return { mapping: { ...mapping } as Record<string, string> };
}

/** token, name and provided_id, each checked. */
export function groupIdentity(value: unknown, where: string): { group: Json; token: string; name: string; provided_id: string } {
  if (!isRecord(value)) throw new ShapeProblem(`"${where}" is not an object`);
  const { token, name, provided_id: providedId } = value;
  if (typeof token !== 'string' || token.length === 0) throw new ShapeProblem(`"${where}.token" is not a non-empty string`);
  // Handed on to browsers and URLs: markup, control characters or 100 KB of text are not a token.
  if (!isUserGroupToken(token)) {
    throw new ShapeProblem(`"${where}.token" is not a token (at most ${MAX_USER_GROUP_TOKEN_CHARS} of A-Z a-z 0-9 - . _ ~)`);
  }
  if (typeof name !== 'string') throw new ShapeProblem(`"${where}.name" is not a string`);
  if (typeof providedId !== 'string') throw new ShapeProblem(`"${where}.provided_id" is not a string`);
  return { group: value, token, name, provided_id: providedId };
}
