import { EXPLO_AUTH_HEADER, EXPLO_CUSTOMER_ROUTES } from '@embedded-dashboard/protocol';
import { checkSameGroup, generatedJwt, groupIdentity, optionalMapping, optionalProperties, ShapeProblem, type UpstreamApi } from './upstream-api.js';

const PATH = {
  getOrCreate: EXPLO_CUSTOMER_ROUTES.getOrCreate,
  update: EXPLO_CUSTOMER_ROUTES.update,
  rotate: EXPLO_CUSTOMER_ROUTES.refreshToken,
  generateJwt: EXPLO_CUSTOMER_ROUTES.generateJwt,
} as const;

/**
 * The vendor's current Customer API (packages/protocol/README.md lists the doc page of every
 * shape): POST routes with trailing slashes, `Explo-Authorization`, `provided_id` in requests,
 * `customer` in answers (its `parent_schema_datasource_mapping` read as the group's `mapping`). Its answers carry no `team_id` and no environment tag, so the typed
 * results leave both out.
 */
export const exploCustomerApi: UpstreamApi = {
  name: 'explo-customer',
  root: '',
  authHeader: EXPLO_AUTH_HEADER,
  route: (op) => ({ method: 'POST', path: PATH[op] }),
  embedTokens: true,
  // update_customer changes only the fields given: without a managed mapping none is sent, so the
  // one set at the vendor (its UI, another tool) stays.
  groupBody: (input) => ({
    provided_id: input.user_group_id,
    name: input.name,
    ...(input.mapping !== undefined && { mapping: input.mapping }),
    properties: input.properties,
  }),
  parse(expectation, json) {
    if (expectation.op === 'generateJwt') return generatedJwt(json) as never;
    const { group, token, name, provided_id } = groupIdentity(json.customer, 'customer');
    switch (expectation.op) {
      case 'getOrCreate': {
        if (typeof json.new_customer !== 'boolean') throw new ShapeProblem('"new_customer" is not a boolean');
        checkSameGroup(provided_id, name, expectation.input, json.new_customer, 'customer');
        return {
          success: 1,
          new_user_group: json.new_customer,
          user_group: { token, name, provided_id, ...optionalProperties(group, 'customer'), ...optionalMapping(group) },
        } as never;
      }
      case 'update':
        checkSameGroup(provided_id, name, expectation.input, true, 'customer');
        return { success: 1, user_group: { token, name, provided_id, ...optionalProperties(group, 'customer'), ...optionalMapping(group) } } as never;
      default:
        return { success: 1, user_group: { token, name, provided_id } } as never;
    }
  },
};
