import { describe, expect, it } from 'vitest';
import type { TransportRequest, TransportResponse } from '../transport/types.js';
import { UserGroupApiError } from '../errors/errors.js';
import { UserGroupClient } from '../client/user-group-client.js';

const API_TOKEN = 'explo-api-token-42';
const JWT = 'eyJhbGciOiJkaXIiLCJlbmMiOiJBMjU2R0NNIiwia2lkIjoiazEifQ..aXY.Y2lwaGVy.dGFn';
const reply = (body: unknown, status = 200, headers: Record<string, string> = {}): TransportResponse => ({ status, headers, body: JSON.stringify(body) });

function clientAnswering(answers: TransportResponse[], options: { api?: 'explo-customer' | 'user-group-service'; maxAttempts?: number } = {}) {
  const requests: TransportRequest[] = [];
  const client = new UserGroupClient({
    baseUrl: 'https://api.vendor.test/',
    apiToken: API_TOKEN,
    api: options.api ?? 'explo-customer',
    maxAttempts: options.maxAttempts ?? 1,
    backoff: { baseMs: 1, maxMs: 1 },
    transport: async (request) => {
      requests.push(request);
      return answers[Math.min(requests.length - 1, answers.length - 1)] as TransportResponse;
    },
  });
  return { client, requests };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.unreachable('resolved'),
    (error: unknown) => error as UserGroupApiError,
  );

describe('UserGroupClient.generateJwt (the Customer API generate_jwt)', () => {
  it('POSTs /api/generate_jwt/ with Explo-Authorization and the documented fields only, and answers { success, jwt }', async () => {
    const { client, requests } = clientAnswering([reply({ success: 1, jwt: JWT })]);
    const input = {
      provided_id: 'acme',
      embed_id: 'sales-overview',
      key_id: 'k1',
      expiration: 'PT1H',
      embed_origin: 'https://app.example.com/',
      chart_id: null,
      extra: 'dropped',
    };
    await expect(client.generateJwt(input as never)).resolves.toEqual({ success: 1, jwt: JWT });
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      method: 'POST',
      url: 'https://api.vendor.test/api/generate_jwt/',
      headers: { 'Explo-Authorization': `Token ${API_TOKEN}` },
    });
    expect(JSON.parse(requests[0]!.body)).toEqual({
      provided_id: 'acme',
      embed_id: 'sales-overview',
      key_id: 'k1',
      expiration: 'PT1H',
      embed_origin: 'https://app.example.com/',
      chart_id: null,
    });
  });

  it('retries a 503 and a 429 (a new token replaces nothing), within its attempts', async () => {
    const { client, requests } = clientAnswering([reply({ success: 0 }, 503), reply({}, 429, { 'retry-after': '0' }), reply({ success: 1, jwt: JWT })], {
      maxAttempts: 3,
    });
    await expect(client.generateJwt({ provided_id: 'acme', embed_id: 'sales-overview' })).resolves.toEqual({ success: 1, jwt: JWT });
    expect(requests).toHaveLength(3);
  });

  it.each([
    ['success 0', reply({ success: 0, error: { code: 'not_found', message: 'no customer' } }), 'api_failure'],
    ['no jwt', reply({ success: 1 }), 'malformed_response'],
    ['a jwt with markup', reply({ success: 1, jwt: '<script>alert(1)</script>' }), 'malformed_response'],
    ['an empty jwt', reply({ success: 1, jwt: '' }), 'malformed_response'],
    ['a 4097-character jwt', reply({ success: 1, jwt: 'a'.repeat(4097) }), 'malformed_response'],
    ['HTML', { status: 200, headers: {}, body: '<html>' }, 'malformed_response'],
    ['a 401 echoing the API token', reply({ detail: `bad token ${API_TOKEN}` }, 401), 'http_status'],
  ])('answers %s with a typed error that never holds the API token', async (_, answer, code) => {
    const error = await failure(clientAnswering([answer]).client.generateJwt({ provided_id: 'acme', embed_id: 'sales-overview' }));
    expect(error).toBeInstanceOf(UserGroupApiError);
    expect(error.code).toBe(code);
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(API_TOKEN);
  });

  it.each([
    ['no object', 'acme'],
    ['no provided_id', { embed_id: 'x' }],
    ['an empty embed_id', { provided_id: 'acme', embed_id: '' }],
    ['a numeric key_id', { provided_id: 'acme', embed_id: 'x', key_id: 1 }],
    ['an expiration in seconds', { provided_id: 'acme', embed_id: 'x', expiration: 3600 }],
    ['an expiration that is no duration', { provided_id: 'acme', embed_id: 'x', expiration: 'one hour' }],
    ['an embed_origin without the trailing slash', { provided_id: 'acme', embed_id: 'x', embed_origin: 'https://a.example' }],
    ['rb_allowed_features that is no list', { provided_id: 'acme', embed_id: 'x', rb_allowed_features: 'flt' }],
    ['a string for disable_editable_section_editing', { provided_id: 'acme', embed_id: 'x', disable_editable_section_editing: 'yes' }],
  ])('refuses %s with a TypeError before sending anything', async (_, input) => {
    const { client, requests } = clientAnswering([reply({ success: 1, jwt: JWT })]);
    await expect(client.generateJwt(input as never)).rejects.toThrow(TypeError);
    expect(requests).toHaveLength(0);
  });

  it('is refused with the user-group-service API, which has no generate_jwt', async () => {
    const { client, requests } = clientAnswering([reply({ success: 1, jwt: JWT })], { api: 'user-group-service' });
    await expect(client.generateJwt({ provided_id: 'acme', embed_id: 'x' })).rejects.toThrow(/needs api: 'explo-customer'/);
    expect(requests).toHaveLength(0);
  });
});
