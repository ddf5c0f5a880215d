import type { GetOrCreateUserGroupResponse, RotateUserGroupTokenResponse, UpdateUserGroupResponse } from '@embedded-dashboard/protocol';
import type { StoredGroup } from '../store/snapshot.js';

export const getOrCreateResponse = (group: StoredGroup, created: boolean): GetOrCreateUserGroupResponse => ({
  success: 1,
  new_user_group: created,
  user_group: { team_id: group.teamId, token: group.token, name: group.name, provided_id: group.providedId, properties: group.properties },
});

export const updateResponse = (group: StoredGroup): UpdateUserGroupResponse => ({
  success: 1,
  user_group: {
    team_id: group.teamId,
    token: group.token,
    name: group.name,
    provided_id: group.providedId,
    properties: group.properties,
    api_environment_tag: group.environment,
  },
});

export const rotateResponse = (group: StoredGroup): RotateUserGroupTokenResponse => ({
  success: 1,
  user_group: { team_id: group.teamId, token: group.token, name: group.name, provided_id: group.providedId, api_environment_tag: group.environment },
});
