import { ENVIRONMENTS, USER_API_PATH, type Environment, type UserGroup } from '@embedded-dashboard/protocol';
import { checkSameGroup, groupIdentity, optionalProperties, ShapeProblem, type Json, type UpstreamApi } from './upstream-api.js';

function userGroup(value: unknown): { group: Json; out: UserGroup } {
  const { group, token, name, provided_id } = groupIdentity(value, 'user_group');
  const teamId = group.team_id;
  if (typeof teamId !== 'number' || !Number.isFinite(teamId)) throw new ShapeProblem('"user_group.team_id" is not a number');
  return { group, out: { team_id: teamId, token, name, provided_id } };
}

function environmentTag(group: Json): { api_environment_tag?: Environment | null } {
  const tag = group.api_environment_tag;
  if (tag === undefined) return {};
  if (tag !== null && !(ENVIRONMENTS as readonly unknown[]).includes(tag)) {
    throw new ShapeProblem('"user_group.api_environment_tag" is not "Customer", "Testing" or null');
  }
  return { api_environment_tag: tag as Environment | null };
}

const METHOD = { getOrCreate: 'GET', update: 'PUT', rotate: 'POST' } as const;

/** The spec's `/api/user` interface (shared/spec/user-group-service.md): the default profile. */
export const userGroupServiceApi: UpstreamApi = {
  name: 'user-group-service',
  root: USER_API_PATH,
  authHeader: 'Authorization',
  // The client never asks for generateJwt here (embedTokens is false).
  route: (op) => ({ method: METHOD[op as keyof typeof METHOD], path: '' }),
  embedTokens: false,
  // The spec makes `mapping` part of every body: no mapping managed is the empty one.
  groupBody: (input) => ({ name: input.name, user_group_id: input.user_group_id, mapping: input.mapping ?? {}, properties: input.properties }),
  parse(expectation, json) {
    const { group, out } = userGroup(json.user_group);
    switch (expectation.op) {
      case 'getOrCreate': {
        if (typeof json.new_user_group !== 'boolean') throw new ShapeProblem('"new_user_group" is not a boolean');
        // An existing group comes back as stored, so only a newly created one must carry the requested name.
        const user_group = { ...out, ...optionalProperties(group, 'user_group') };
        checkSameGroup(out.provided_id, out.name, expectation.input, json.new_user_group, 'user_group');
        return { success: 1, new_user_group: json.new_user_group, user_group } as never;
      }
      case 'update': {
        checkSameGroup(out.provided_id, out.name, expectation.input, true, 'user_group');
        return { success: 1, user_group: { ...out, ...optionalProperties(group, 'user_group'), ...environmentTag(group) } } as never;
      }
      default:
        return { success: 1, user_group: { ...out, ...environmentTag(group) } } as never;
    }
  },
};
