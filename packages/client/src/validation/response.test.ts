import { describe, expect, it } from 'vitest';
import type { UserGroupApiError } from '../errors/errors.js';
import { interpretResponse, type Expectation } from './response.js';
import { userGroupServiceApi } from '../api/user-group-service.js';

const INPUT = { name: 'Acme Corp', user_group_id: 'acme', mapping: {}, properties: { region: 'EU' } };
const GROUP = { team_id: 7, token: 'ugt-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' } };
const getOrCreate: Expectation = { op: 'getOrCreate', input: INPUT };
const update: Expectation = { op: 'update', input: INPUT };
const rotate: Expectation = { op: 'rotate' };

const ok = (body: unknown, status = 200) => ({ status, headers: {}, body: typeof body === 'string' ? body : JSON.stringify(body) });
const errorOf = (expectation: Expectation, response: ReturnType<typeof ok>) => {
  try {
    interpretResponse(expectation, response, ['api-key'], 0, userGroupServiceApi);
  } catch (error) {
    return error as UserGroupApiError;
  }
  throw new Error('expected an error');
};

describe('interpretResponse: documented shapes', () => {
  it('accepts get-or-create with and without properties', () => {
    expect(interpretResponse(getOrCreate, ok({ success: 1, new_user_group: true, user_group: GROUP }), [], 0, userGroupServiceApi).user_group).toEqual(GROUP);
    const { properties: _omitted, ...bare } = GROUP;
    expect(interpretResponse(getOrCreate, ok({ success: 1, new_user_group: false, user_group: bare }), [], 0, userGroupServiceApi).user_group).toEqual(bare);
    expect(
      interpretResponse(getOrCreate, ok({ success: 1, new_user_group: false, user_group: { ...GROUP, properties: null } }), [], 0, userGroupServiceApi)
        .user_group.properties,
    ).toBeNull();
  });

  it('lets an existing group come back under its stored name (get-or-create does not update)', () => {
    const stale = { ...GROUP, name: 'Acme Inc (old)' };
    expect(interpretResponse(getOrCreate, ok({ success: 1, new_user_group: false, user_group: stale }), [], 0, userGroupServiceApi).user_group.name).toBe(
      'Acme Inc (old)',
    );
  });

  it.each(['Customer', 'Testing', null, undefined])('accepts api_environment_tag %j on update and rotate', (tag) => {
    const userGroup = tag === undefined ? GROUP : { ...GROUP, api_environment_tag: tag };
    expect(interpretResponse(update, ok({ success: 1, user_group: userGroup }), [], 0, userGroupServiceApi).user_group.api_environment_tag).toBe(tag);
    expect(interpretResponse(rotate, ok({ success: 1, user_group: userGroup }), [], 0, userGroupServiceApi).user_group.api_environment_tag).toBe(tag);
  });

  it('drops undocumented fields, and properties from rotate', () => {
    const result = interpretResponse(
      rotate,
      ok({ success: 1, extra: true, user_group: { ...GROUP, api_environment_tag: 'Testing', secret: 1 } }),
      [],
      0,
      userGroupServiceApi,
    );
    expect(result).toEqual({ success: 1, user_group: { team_id: 7, token: 'ugt-1', name: 'Acme Corp', provided_id: 'acme', api_environment_tag: 'Testing' } });
  });

  it('accepts any 2xx status', () => {
    expect(interpretResponse(rotate, ok({ success: 1, user_group: GROUP }, 201), [], 0, userGroupServiceApi).success).toBe(1);
  });
});

describe('interpretResponse: failures', () => {
  it.each([
    [getOrCreate, ok({ success: 1, user_group: GROUP }), /new_user_group/],
    [getOrCreate, ok({ success: 1, new_user_group: 'true', user_group: GROUP }), /new_user_group/],
    [getOrCreate, ok({ success: 1, new_user_group: true }), /user_group/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: [] }), /user_group/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, team_id: '7' } }), /team_id/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, team_id: Number.NaN } }), /team_id/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, token: '' } }), /token/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, token: 5 } }), /token/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, name: null } }), /name/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, provided_id: 9 } }), /provided_id/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, properties: 'x' } }), /properties/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, properties: [1] } }), /properties/],
    [getOrCreate, ok({ success: 1, new_user_group: false, user_group: { ...GROUP, provided_id: 'globex' } }), /provided_id/],
    [getOrCreate, ok({ success: 1, new_user_group: true, user_group: { ...GROUP, name: 'Other' } }), /name/],
    [update, ok({ success: 1, user_group: { ...GROUP, name: 'Other' } }), /name/],
    [update, ok({ success: 1, user_group: { ...GROUP, provided_id: 'globex' } }), /provided_id/],
    [update, ok({ success: 1, user_group: { ...GROUP, api_environment_tag: 'Production' } }), /api_environment_tag/],
    [rotate, ok({ success: 1, user_group: { ...GROUP, api_environment_tag: 1 } }), /api_environment_tag/],
    [rotate, ok({ success: 1, user_group: { ...GROUP, team_id: undefined } }), /team_id/],
    [rotate, ok({ success: '1', user_group: GROUP }), /success/],
    [rotate, ok({ success: true, user_group: GROUP }), /success/],
    [rotate, ok({ user_group: GROUP }), /success/],
    [rotate, ok([]), /object/],
    [rotate, ok('null'), /object/],
    [rotate, ok(''), /not JSON/],
    [rotate, ok('{"success":1,'), /not JSON/],
  ] as const)('refuses malformed body %# as malformed_response', (expectation, response, message) => {
    const error = errorOf(expectation, response);
    expect(error).toMatchObject({ code: 'malformed_response', status: response.status, retryable: false });
    expect(error.message).toMatch(message);
  });

  it('maps success: 0 to api_failure, with a redacted snippet', () => {
    const error = errorOf(update, ok({ success: 0, error: { message: 'bad key api-key' } }));
    expect(error).toMatchObject({ code: 'api_failure', status: 200, retryable: false });
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain('api-key');
  });

  it.each([
    [500, 'http_status', true],
    [503, 'http_status', true],
    [408, 'http_status', true],
    [400, 'http_status', false],
    [401, 'http_status', false],
    [404, 'http_status', false],
    [302, 'http_status', false],
    [429, 'rate_limited', true],
  ])('maps HTTP %i to %s (retryable %s), whatever the body', (status, code, retryable) => {
    const error = errorOf(getOrCreate, ok({ success: 1, new_user_group: true, user_group: GROUP }, status));
    expect(error).toMatchObject({ code, status, retryable });
  });

  it('carries Retry-After on 429 and 503, and ignores nonsense', () => {
    const withHeader = (status: number, value: string) => errorOf(rotate, { status, headers: { 'retry-after': value }, body: '' }).retryAfterMs;
    expect(withHeader(429, '2')).toBe(2000);
    expect(withHeader(503, '0')).toBe(0);
    expect(withHeader(429, 'soon')).toBeUndefined();
  });

  it('cuts long snippets short', () => {
    const error = errorOf(rotate, ok('x'.repeat(10_000), 502));
    expect(error.message.length).toBeLessThan(300);
  });
});

describe("interpretResponse: the vendor's token", () => {
  it.each([
    ['markup', 'abc<script>alert(1)</script>'],
    ['NUL', 'abc\u0000def'],
    ['CR/LF', 'abc\r\ndef'],
    ['U+2028', 'abc\u2028def'],
    ['100 KB of text', 'a'.repeat(100 * 1024)],
  ])('refuses a token with %s as malformed_response, in every operation', (_, token) => {
    for (const expectation of [getOrCreate, update, rotate]) {
      const body =
        expectation.op === 'getOrCreate'
          ? { success: 1, new_user_group: false, user_group: { ...GROUP, token } }
          : { success: 1, user_group: { ...GROUP, token } };
      const error = errorOf(expectation, ok(body));
      expect(error.code).toBe('malformed_response');
      expect(error.message).not.toContain(token.slice(0, 20));
    }
  });

  it('accepts hex, base64url and JWT-shaped tokens', () => {
    for (const token of ['a'.repeat(64), 'Ez8i68V5l3hPoyRPVimoh74SoMsOnTgv', 'eyJhbGciOiJkaXIifQ..aXY.Y2lwaGVy.dGFn']) {
      expect(interpretResponse(rotate, ok({ success: 1, user_group: { ...GROUP, token } }), [], 0, userGroupServiceApi).user_group.token).toBe(token);
    }
  });
});
