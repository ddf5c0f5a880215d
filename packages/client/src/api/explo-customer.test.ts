import { describe, expect, it } from 'vitest';
import type { TransportRequest, TransportResponse } from '../transport/types.js';
import { UserGroupApiError } from '../errors/errors.js';
import { UserGroupClient } from '../client/user-group-client.js';

const API_TOKEN = 'explo-api-token-42';
const INPUT = { name: 'Acme Corp', user_group_id: 'acme', mapping: { '40': '213' }, properties: { region: 'EU' } };
const CUSTOMER = {
  token: 'ct-1',
  name: 'Acme Corp',
  provided_id: 'acme',
  is_demo_group: false,
  emails: [],
  properties: { region: 'EU' },
  computed_properties: { region: 'EU' },
  access_group: 'Production',
  parent_schema_datasource_mapping: { '40': '213' },
};
const reply = (body: unknown, status = 200): TransportResponse => ({ status, headers: {}, body: JSON.stringify(body) });

function clientAnswering(...answers: TransportResponse[]) {
  const requests: TransportRequest[] = [];
  const client = new UserGroupClient({
    baseUrl: 'https://api.vendor.test/',
    apiToken: API_TOKEN,
    api: 'explo-customer',
    maxAttempts: 1,
    transport: async (request) => {
      requests.push(request);
      return answers[Math.min(requests.length - 1, answers.length - 1)] as TransportResponse;
    },
  });
  return { client, requests };
}

describe('UserGroupClient with api: explo-customer (the vendor Customer API)', () => {
  it('gets or creates with POST /api/create_customer/, Explo-Authorization and provided_id; maps new_customer/customer', async () => {
    const { client, requests } = clientAnswering(reply({ success: 1, new_customer: true, customer: CUSTOMER }));
    expect(client.api).toBe('explo-customer');
    const result = await client.getOrCreateUserGroup(INPUT);
    expect(result).toEqual({
      success: 1,
      new_user_group: true,
      user_group: { token: 'ct-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' }, mapping: { '40': '213' } },
    });
    const [request] = requests;
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('https://api.vendor.test/api/create_customer/');
    expect(request?.headers['Explo-Authorization']).toBe(`Token ${API_TOKEN}`);
    expect(request?.headers).not.toHaveProperty('Authorization');
    expect(JSON.parse(request?.body ?? '')).toEqual({ provided_id: 'acme', name: 'Acme Corp', mapping: { '40': '213' }, properties: { region: 'EU' } });
  });

  it('updates with POST /api/update_customer/ and rotates with POST /api/refresh_customer_token/ {current_token}', async () => {
    const { client, requests } = clientAnswering(reply({ success: 1, customer: CUSTOMER }), reply({ success: 1, customer: { ...CUSTOMER, token: 'ct-2' } }));
    const updated = await client.updateUserGroup(INPUT);
    expect(updated.user_group).toEqual({ token: 'ct-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' }, mapping: { '40': '213' } });
    expect(updated.user_group.api_environment_tag).toBeUndefined();
    const rotated = await client.rotateUserGroupToken('ct-1');
    expect(rotated.user_group).toEqual({ token: 'ct-2', name: 'Acme Corp', provided_id: 'acme' });
    expect(requests.map((r) => [r.method, r.url, JSON.parse(r.body)])).toEqual([
      [
        'POST',
        'https://api.vendor.test/api/update_customer/',
        { provided_id: 'acme', name: 'Acme Corp', mapping: { '40': '213' }, properties: { region: 'EU' } },
      ],
      ['POST', 'https://api.vendor.test/api/refresh_customer_token/', { current_token: 'ct-1' }],
    ]);
  });

  it("sends no mapping when the input has none (update_customer keeps the vendor's), and reads the answer's mapping only as an object of strings", async () => {
    const noMapping = { name: 'Acme Corp', user_group_id: 'acme', properties: { region: 'EU' } };
    const answers = [
      { ...CUSTOMER, parent_schema_datasource_mapping: { '40': 213 } },
      { ...CUSTOMER, parent_schema_datasource_mapping: null },
      { ...CUSTOMER, parent_schema_datasource_mapping: ['ds'] },
      { ...CUSTOMER, parent_schema_datasource_mapping: { proto: 'ds', s: 'd' } },
    ];
    const replies = answers.map((customer) => reply({ success: 1, customer }));
    replies[3] = { ...replies[3]!, body: replies[3]!.body.replace('"proto"', '"__proto__"') };
    const { client, requests } = clientAnswering(...replies);
    const mappings = [];
    for (let i = 0; i < answers.length; i++) mappings.push((await client.updateUserGroup(noMapping)).user_group.mapping);
    expect(mappings.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(Object.getPrototypeOf(mappings[3])).toBe(Object.prototype);
    expect(Object.keys(mappings[3]!)).toEqual(['__proto__', 's']);
    expect(requests.map((r) => JSON.parse(r.body) as unknown)).toEqual(
      answers.map(() => ({ provided_id: 'acme', name: 'Acme Corp', properties: { region: 'EU' } })),
    );
    await expect(client.updateUserGroup({ ...noMapping, mapping: ['ds'] } as never)).rejects.toThrow(/"mapping" must be an object or absent/);
    await expect(client.updateUserGroup({ ...noMapping, mapping: { s: 1 } } as never)).rejects.toThrow(/"mapping" values must be strings/);
  });

  it.each([
    ['no customer', { success: 1, new_customer: false }],
    ['new_customer not a boolean', { success: 1, new_customer: 'yes', customer: CUSTOMER }],
    ['empty token', { success: 1, new_customer: false, customer: { ...CUSTOMER, token: '' } }],
    ['another customer', { success: 1, new_customer: false, customer: { ...CUSTOMER, provided_id: 'globex' } }],
    ['properties an array', { success: 1, new_customer: false, customer: { ...CUSTOMER, properties: [1] } }],
    ['the old API shape', { success: 1, new_user_group: true, user_group: { team_id: 1, ...CUSTOMER } }],
  ])('refuses an answer with %s as malformed_response', async (_name, body) => {
    const { client } = clientAnswering(reply(body));
    const error = await client.getOrCreateUserGroup(INPUT).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UserGroupApiError);
    expect((error as UserGroupApiError).code).toBe('malformed_response');
  });

  it('maps success: 0 and HTTP errors to the same typed errors as the default API, without the API token', async () => {
    const failed = await clientAnswering(reply({ success: 0, error: `bad ${API_TOKEN}` }))
      .client.rotateUserGroupToken('ct-1')
      .catch((e: unknown) => e);
    expect((failed as UserGroupApiError).code).toBe('api_failure');
    expect(String((failed as Error).message)).not.toContain(API_TOKEN);
    const status = await clientAnswering(reply({ detail: 'Method "GET" not allowed.' }, 405))
      .client.updateUserGroup(INPUT)
      .catch((e: unknown) => e);
    expect((status as UserGroupApiError).status).toBe(405);
  });

  it('refuses an unknown api name, naming the option', () => {
    expect(() => new UserGroupClient({ baseUrl: 'http://x.test', apiToken: 't', api: 'graphql' as never })).toThrow(
      /"api" must be one of user-group-service, explo-customer/,
    );
  });
});
