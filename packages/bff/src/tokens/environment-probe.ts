import type { UserGroupInput } from '@embedded-dashboard/protocol';

/**
 * The group the BFF uses to learn its vendor account's environment: get-or-create does not say
 * which environment answered, update does. No customer's data goes into it.
 */
export const ENVIRONMENT_PROBE_GROUP: UserGroupInput = {
  user_group_id: 'embedded-dashboard-environment-probe',
  name: 'Environment probe (embedded-dashboard)',
  mapping: {},
  properties: {},
};

/**
 * The `token` of the store entry that records the account's environment for every process
 * sharing the store (key `account-environment:<account>`, never a group's key). It is not a
 * token and is never handed out; it is not empty because stores refuse entries without a token
 * (the Redis codec reads such an entry as a miss, and each process would probe again).
 */
export const ENVIRONMENT_MARKER_TOKEN = 'account-environment-marker';
