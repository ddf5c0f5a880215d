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
