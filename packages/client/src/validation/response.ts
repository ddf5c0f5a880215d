import { ENVIRONMENTS, isUserGroupToken, MAX_USER_GROUP_TOKEN_CHARS } from '@embedded-dashboard/protocol';
import type {
  Environment,
  GetOrCreateUserGroupResponse,
  RotateUserGroupTokenResponse,
  UpdateUserGroupResponse,
  UserGroup,
  UserGroupInput,
  UserGroupProperties,
  UserGroupWithEnvironment,
} from '@embedded-dashboard/protocol';
import {
  UserGroupApiFailureError,
  UserGroupHttpStatusError,
  UserGroupMalformedResponseError,
  UserGroupRateLimitedError,
} from '../errors/errors.js';
import { bodySnippet } from '../errors/redact.js';
import { parseRetryAfter } from '../retry/backoff.js';
import type { TransportResponse } from '../transport/types.js';

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Raised inside the shape checks; becomes a `malformed_response` carrying the HTTP status. */
class ShapeProblem extends Error {}

function userGroupBase(value: unknown): { group: Json; out: UserGroup } {
  if (!isRecord(value)) throw new ShapeProblem('"user_group" is not an object');
  const { team_id: teamId, token, name, provided_id: providedId } = value;
  if (typeof teamId !== 'number' || !Number.isFinite(teamId)) throw new ShapeProblem('"user_group.team_id" is not a number');
  if (typeof token !== 'string' || token.length === 0) throw new ShapeProblem('"user_group.token" is not a non-empty string');
  // Handed on to browsers and URLs: markup, control characters or 100 KB of text are not a token.
  if (!isUserGroupToken(token)) {
    throw new ShapeProblem(`"user_group.token" is not a token (at most ${MAX_USER_GROUP_TOKEN_CHARS} of A-Z a-z 0-9 - . _ ~)`);
  }
  if (typeof name !== 'string') throw new ShapeProblem('"user_group.name" is not a string');
  if (typeof providedId !== 'string') throw new ShapeProblem('"user_group.provided_id" is not a string');
  return { group: value, out: { team_id: teamId, token, name, provided_id: providedId } };
}

function withProperties(group: Json, out: UserGroup): UserGroup {
  if (!('properties' in group) || group.properties === undefined) return out;
  if (group.properties !== null && !isRecord(group.properties)) throw new ShapeProblem('"user_group.properties" is neither an object nor null');
  return { ...out, properties: group.properties as UserGroupProperties | null };
}

function environmentTag(group: Json): { api_environment_tag?: Environment | null } {
  const tag = group.api_environment_tag;
  if (tag === undefined) return {};
  if (tag !== null && !(ENVIRONMENTS as readonly unknown[]).includes(tag)) {
    throw new ShapeProblem('"user_group.api_environment_tag" is not "Customer", "Testing" or null');
  }
  return { api_environment_tag: tag as Environment | null };
}

function sameGroup(out: UserGroup, input: UserGroupInput, checkName: boolean): void {
  // A different provided_id means the answer is about someone else's group: never hand it on.
  if (out.provided_id !== input.user_group_id) throw new ShapeProblem('"user_group.provided_id" does not match the requested user_group_id');
  if (checkName && out.name !== input.name) throw new ShapeProblem('"user_group.name" does not match the requested name');
}

const shapeOf = {
  /**
   * get-or-create returns an existing group as stored, so its name may lag behind the request
   * (the caller must then update); only a newly created group must carry the requested name.
   */
  getOrCreate(json: Json, input: UserGroupInput): GetOrCreateUserGroupResponse {
    if (typeof json.new_user_group !== 'boolean') throw new ShapeProblem('"new_user_group" is not a boolean');
    const { group, out } = userGroupBase(json.user_group);
    const userGroup = withProperties(group, out);
    sameGroup(userGroup, input, json.new_user_group);
    return { success: 1, new_user_group: json.new_user_group, user_group: userGroup };
  },
  update(json: Json, input: UserGroupInput): UpdateUserGroupResponse {
    const { group, out } = userGroupBase(json.user_group);
    const userGroup: UserGroupWithEnvironment = { ...withProperties(group, out), ...environmentTag(group) };
    sameGroup(userGroup, input, true);
    return { success: 1, user_group: userGroup };
  },
  rotate(json: Json): RotateUserGroupTokenResponse {
    const { group, out } = userGroupBase(json.user_group);
    return { success: 1, user_group: { ...out, ...environmentTag(group) } };
  },
};

/** Which operation a response answers, with what it needs to be checked against. */
export type Expectation =
  | { op: 'getOrCreate'; input: UserGroupInput }
  | { op: 'update'; input: UserGroupInput }
  | { op: 'rotate' };

export type ResponseFor<E extends Expectation['op']> = E extends 'getOrCreate'
  ? GetOrCreateUserGroupResponse
  : E extends 'update'
    ? UpdateUserGroupResponse
    : RotateUserGroupTokenResponse;

/**
 * Turns a whole HTTP response into the documented result or a typed error: non-2xx, 429,
 * `success: 0`, non-JSON and any deviation from spec §4 each get their own code. The result holds
 * only the documented fields, so nothing unvalidated travels on. Error messages are redacted.
 */
export function interpretResponse<E extends Expectation>(
  expectation: E,
  response: TransportResponse,
  secrets: readonly string[],
  now: number,
): ResponseFor<E['op']> {
  const { status, body } = response;
  if (status === 429 || status < 200 || status > 299) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now);
    const detail = `vendor answered HTTP ${status}: ${bodySnippet(body, secrets)}`;
    if (status === 429) throw new UserGroupRateLimitedError(detail, { status, retryAfterMs });
    throw new UserGroupHttpStatusError(detail, { status, retryAfterMs });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new UserGroupMalformedResponseError(`response is not JSON: ${bodySnippet(body, secrets)}`, { status });
  }
  if (!isRecord(json)) throw new UserGroupMalformedResponseError('response is not a JSON object', { status });
  if (json.success === 0) throw new UserGroupApiFailureError(`vendor answered success: 0: ${bodySnippet(body, secrets)}`, { status });
  if (json.success !== 1) throw new UserGroupMalformedResponseError('"success" is neither 1 nor 0', { status });
  try {
    const parsed =
      expectation.op === 'getOrCreate'
        ? shapeOf.getOrCreate(json, expectation.input)
        : expectation.op === 'update'
          ? shapeOf.update(json, expectation.input)
          : shapeOf.rotate(json);
    return parsed as ResponseFor<E['op']>;
  } catch (error) {
    if (error instanceof ShapeProblem) throw new UserGroupMalformedResponseError(`response is not the documented shape: ${error.message}`, { status });
    throw error;
  }
}
