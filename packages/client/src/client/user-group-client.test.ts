import { inspect } from 'node:util';
import { describe, expect, it, vi } from 'vitest';
import { UserGroupApiError, type Transport, type TransportRequest, type TransportResponse } from '../index.js';
import { UserGroupClient, createUserGroupClient, type UserGroupClientOptions } from './user-group-client.js';

const API_TOKEN = 'secret-api-token-123';
const INPUT = { name: 'Acme Corp', user_group_id: 'acme', mapping: { sales: 'ds-1' }, properties: { region: 'EU' } };
const GROUP = { team_id: 7, token: 'ugt-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' } };

const reply = (status: number, body: unknown, headers: Record<string, string> = {}): TransportResponse => ({
  status,
  headers,
  body: typeof body === 'string' ? body : JSON.stringify(body),
});
const created = reply(200, { success: 1, new_user_group: true, user_group: GROUP });
const updated = reply(200, { success: 1, user_group: { ...GROUP, api_environment_tag: 'Customer' } });
const rotated = reply(200, { success: 1, user_group: { ...GROUP, token: 'ugt-2', api_environment_tag: null } });

type Step = TransportResponse | Error | ((request: TransportRequest) => Promise<TransportResponse>);

/** A transport that plays `steps` in order (the last repeats) and records every request. */
function scripted(...steps: Step[]): Transport & { requests: TransportRequest[] } {
  const requests: TransportRequest[] = [];
  const transport = async (request: TransportRequest) => {
    requests.push(request);
    const step = steps[Math.min(requests.length - 1, steps.length - 1)];
    if (typeof step === 'function') return step(request);
    if (step instanceof Error) throw step;
    if (!step) throw new Error('no step');
    return step;
  };
  return Object.assign(transport, { requests });
}

/** Never settles unless its signal aborts (or, with `ignoreSignal`, never at all). */
const hanging =
  (ignoreSignal = false) =>
  (request: TransportRequest) =>
    new Promise<TransportResponse>((_resolve, reject) => {
      if (!ignoreSignal) request.signal.addEventListener('abort', () => reject(new Error('aborted by signal')));
    });

function makeClient(transport: Transport, options: Partial<UserGroupClientOptions> = {}) {
  const sleeps: number[] = [];
  const client = new UserGroupClient({
    baseUrl: 'http://vendor.test',
    apiToken: API_TOKEN,
    transport,
    random: () => 0.5,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    ...options,
  });
  return { client, sleeps };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error as UserGroupApiError,
  );

describe('UserGroupClient requests', () => {
  it('sends each operation with its method, URL, headers and exact JSON body', async () => {
    const transport = scripted(created, updated, rotated);
    const { client } = makeClient(transport, { baseUrl: 'https://vendor.test/prefix/' });
    await client.getOrCreateUserGroup({ ...INPUT, extra: 'dropped' } as typeof INPUT);
    await client.updateUserGroup(INPUT);
    await client.rotateUserGroupToken('ugt-1');
    expect(transport.requests.map((r) => [r.method, r.url])).toEqual([
      ['GET', 'https://vendor.test/prefix/api/user'],
      ['PUT', 'https://vendor.test/prefix/api/user'],
      ['POST', 'https://vendor.test/prefix/api/user'],
    ]);
    expect(JSON.parse(transport.requests[0]?.body ?? '')).toEqual(INPUT);
    expect(JSON.parse(transport.requests[1]?.body ?? '')).toEqual(INPUT);
    expect(JSON.parse(transport.requests[2]?.body ?? '')).toEqual({ current_token: 'ugt-1' });
    expect(transport.requests[0]?.headers).toMatchObject({ Authorization: `Token ${API_TOKEN}`, 'Content-Type': 'application/json' });
  });

  it('returns only the documented fields', async () => {
    const transport = scripted(reply(200, { success: 1, new_user_group: false, extra: 1, user_group: { ...GROUP, secret: 'x' } }));
    const result = await makeClient(transport).client.getOrCreateUserGroup(INPUT);
    expect(result).toEqual({ success: 1, new_user_group: false, user_group: GROUP });
  });

  it('returns the rotated token and environment tag', async () => {
    const result = await makeClient(scripted(rotated)).client.rotateUserGroupToken('ugt-1');
    expect(result.user_group).toEqual({ team_id: 7, token: 'ugt-2', name: 'Acme Corp', provided_id: 'acme', api_environment_tag: null });
  });

  it('accountId is a short fingerprint of URL and API token that never contains the token', () => {
    const id = (baseUrl: string, apiToken: string) => new UserGroupClient({ baseUrl, apiToken, transport: scripted() }).accountId;
    const a = id('http://vendor.test', API_TOKEN);
    expect(a).toMatch(/^[0-9a-f]{16}$/);
    expect(id('http://vendor.test/', API_TOKEN)).toBe(a);
    expect(id('http://vendor.test', `${API_TOKEN}x`)).not.toBe(a);
    expect(id('http://other.test', API_TOKEN)).not.toBe(a);
    expect(a).not.toContain(API_TOKEN.slice(0, 8));
  });

  it('createUserGroupClient builds the same client', async () => {
    const transport = scripted(created);
    const client = createUserGroupClient({ baseUrl: 'http://vendor.test', apiToken: API_TOKEN, transport });
    expect(client).toBeInstanceOf(UserGroupClient);
    await expect(client.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ new_user_group: true });
  });
});

describe('UserGroupClient retries', () => {
  it('retries get-or-create on 5xx with full-jitter exponential backoff', async () => {
    const transport = scripted(reply(503, 'busy'), reply(502, ''), reply(500, ''), created);
    const { client, sleeps } = makeClient(transport, { backoff: { baseMs: 100, maxMs: 150 } });
    await expect(client.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ success: 1 });
    // random 0.5 of ceilings 100, 200→150 (capped), 400→150
    expect(sleeps).toEqual([50, 75, 75]);
    expect(transport.requests).toHaveLength(4);
  });

  it('draws the jitter from the injected random over the whole [0, ceiling) range', async () => {
    const draws = [0, 0.999];
    const transport = scripted(reply(503, ''), reply(503, ''), created);
    const { client, sleeps } = makeClient(transport, { random: () => draws.shift() ?? 0, backoff: { baseMs: 1000, maxMs: 10_000 } });
    await client.getOrCreateUserGroup(INPUT);
    expect(sleeps).toEqual([0, 1998]);
  });

  it('retries update on network errors and 429, honouring Retry-After seconds', async () => {
    const transport = scripted(new Error('ECONNRESET'), reply(429, '', { 'retry-after': '3' }), updated);
    const { client, sleeps } = makeClient(transport);
    await expect(client.updateUserGroup(INPUT)).resolves.toMatchObject({ user_group: { api_environment_tag: 'Customer' } });
    expect(sleeps).toEqual([100, 3000]);
  });

  it('honours Retry-After as an HTTP date against the injected clock', async () => {
    const now = Date.parse('2030-01-01T00:00:00Z');
    const transport = scripted(reply(503, '', { 'retry-after': 'Tue, 01 Jan 2030 00:00:04 GMT' }), created);
    const { client, sleeps } = makeClient(transport, { now: () => now });
    await client.getOrCreateUserGroup(INPUT);
    expect(sleeps).toEqual([4000]);
  });

  it('gives up after maxAttempts with the last error', async () => {
    const transport = scripted(reply(503, ''), reply(429, '', { 'retry-after': '1' }));
    const { client } = makeClient(transport, { maxAttempts: 3 });
    const error = await failure(client.getOrCreateUserGroup(INPUT));
    expect(error).toMatchObject({ code: 'rate_limited', status: 429, retryable: true, retryAfterMs: 1000 });
    expect(transport.requests).toHaveLength(3);
  });

  it.each([
    ['a 4xx', reply(400, 'bad'), 'http_status'],
    ['success: 0', reply(200, { success: 0, error: { code: 'invalid_field', message: 'name' } }), 'api_failure'],
    ['a malformed body', reply(200, '<html>'), 'malformed_response'],
  ])('does not retry %s', async (_label, response, code) => {
    const transport = scripted(response, created);
    const error = await failure(makeClient(transport).client.getOrCreateUserGroup(INPUT));
    expect(error).toMatchObject({ code, retryable: false });
    expect(transport.requests).toHaveLength(1);
  });

  it.each([
    ['a 503', reply(503, '')],
    ['a 429', reply(429, '', { 'retry-after': '1' })],
    ['a network error', new Error('socket hang up')],
  ])('never retries rotate after %s', async (_label, step) => {
    const transport = scripted(step, rotated);
    const { client, sleeps } = makeClient(transport);
    const error = await failure(client.rotateUserGroupToken('ugt-1'));
    expect(error.retryable).toBe(true);
    expect(transport.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('stops retrying when the next wait would pass the deadline, reporting the real failure', async () => {
    const transport = scripted(reply(503, '', { 'retry-after': '20' }), created);
    const { client, sleeps } = makeClient(transport, { now: () => 0, deadlineMs: 10_000 });
    const error = await failure(client.getOrCreateUserGroup(INPUT));
    expect(error).toMatchObject({ code: 'http_status', status: 503, retryAfterMs: 20_000 });
    expect(sleeps).toEqual([]);
  });

  it('does not retry sooner than a Retry-After of more than a day; it stops instead', async () => {
    const transport = scripted(reply(429, '', { 'retry-after': '172800' }), created);
    const { client, sleeps } = makeClient(transport, { now: () => 0 });
    const error = await failure(client.getOrCreateUserGroup(INPUT));
    expect(error).toMatchObject({ code: 'rate_limited', retryAfterMs: 86_400_000 });
    expect(transport.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it('counts time spent in earlier attempts against the deadline', async () => {
    let clock = 0;
    const transport = scripted(async () => {
      clock += 9_950;
      return reply(503, '');
    });
    const { client, sleeps } = makeClient(transport, { now: () => clock, deadlineMs: 10_000 });
    await failure(client.getOrCreateUserGroup(INPUT));
    expect(transport.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });
});

describe('UserGroupClient timeouts, deadline and abort', () => {
  it('times out an attempt, aborts its signal, and retries', async () => {
    const transport = scripted(hanging(), created);
    const { client } = makeClient(transport, { timeoutMs: 20 });
    await expect(client.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ success: 1 });
    expect(transport.requests[0]?.signal.aborted).toBe(true);
  });

  it('maps a timed-out rotate to "timeout" even when the transport ignores its signal', async () => {
    const transport = scripted(hanging(true));
    const error = await failure(makeClient(transport, { timeoutMs: 20 }).client.rotateUserGroupToken('ugt-1'));
    expect(error).toMatchObject({ code: 'timeout', retryable: true, status: undefined });
  });

  it('maps the overall deadline to "deadline_exceeded" with the last failure as cause', async () => {
    const transport = scripted(reply(503, ''), hanging(true));
    const error = await failure(
      makeClient(transport, { timeoutMs: 5_000, deadlineMs: 40, backoff: { baseMs: 0, maxMs: 0 } }).client.getOrCreateUserGroup(INPUT),
    );
    expect(error).toMatchObject({ code: 'deadline_exceeded', retryable: true });
    expect((error.cause as UserGroupApiError).code).toBe('http_status');
  });

  it('aborts an attempt in flight when the caller aborts, without retrying', async () => {
    const transport = scripted(hanging());
    const controller = new AbortController();
    const pending = failure(makeClient(transport).client.getOrCreateUserGroup(INPUT, { signal: controller.signal }));
    await vi.waitFor(() => expect(transport.requests).toHaveLength(1));
    controller.abort(new Error('user left'));
    const error = await pending;
    expect(error).toMatchObject({ code: 'aborted', retryable: false });
    expect((error.cause as Error).message).toBe('user left');
    expect(transport.requests).toHaveLength(1);
    expect(transport.requests[0]?.signal.aborted).toBe(true);
  });

  it('sends nothing when the signal is already aborted', async () => {
    const transport = scripted(created);
    const error = await failure(makeClient(transport).client.getOrCreateUserGroup(INPUT, { signal: AbortSignal.abort() }));
    expect(error.code).toBe('aborted');
    expect(transport.requests).toHaveLength(0);
  });

  it('aborts during the backoff wait', async () => {
    const transport = scripted(reply(503, ''), created);
    const controller = new AbortController();
    const client = new UserGroupClient({
      baseUrl: 'http://vendor.test',
      apiToken: API_TOKEN,
      transport,
      deadlineMs: 120_000,
      backoff: { baseMs: 60_000, maxMs: 60_000 },
      random: () => 1 - Number.EPSILON,
    });
    const pending = failure(client.getOrCreateUserGroup(INPUT, { signal: controller.signal }));
    await vi.waitFor(() => expect(transport.requests).toHaveLength(1));
    controller.abort();
    expect((await pending).code).toBe('aborted');
    expect(transport.requests).toHaveLength(1);
  });
});

describe('UserGroupClient in-flight bound', () => {
  it('never has more than maxInFlight requests out, and queues the rest', async () => {
    let inFlight = 0;
    let peak = 0;
    const release: Array<() => void> = [];
    const transport = scripted(
      (request) =>
        new Promise<TransportResponse>((resolve) => {
          inFlight += 1;
          peak = Math.max(peak, inFlight);
          const body = JSON.parse(request.body) as typeof INPUT;
          release.push(() => {
            inFlight -= 1;
            resolve(reply(200, { success: 1, new_user_group: true, user_group: { ...GROUP, provided_id: body.user_group_id } }));
          });
        }),
    );
    const { client } = makeClient(transport, { maxInFlight: 2 });
    const calls = Array.from({ length: 5 }, (_, i) => client.getOrCreateUserGroup({ ...INPUT, user_group_id: `g${i}` }));
    await vi.waitFor(() => expect(release.length).toBe(2));
    for (let answered = 0; answered < 5; answered += 1) {
      await vi.waitFor(() => expect(release.length).toBeGreaterThan(0));
      release.shift()?.();
    }
    const results = await Promise.all(calls);
    expect(results.map((r) => r.user_group.provided_id)).toEqual(['g0', 'g1', 'g2', 'g3', 'g4']);
    expect(peak).toBe(2);
  });

  it('frees the slot of a call aborted while queued', async () => {
    const transport = scripted(hanging(), created);
    const { client } = makeClient(transport, { maxInFlight: 1, timeoutMs: 50 });
    const first = failure(client.rotateUserGroupToken('ugt-1'));
    const controller = new AbortController();
    const queued = failure(client.getOrCreateUserGroup(INPUT, { signal: controller.signal }));
    controller.abort();
    expect((await queued).code).toBe('aborted');
    expect((await first).code).toBe('timeout');
    await expect(client.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ success: 1 });
    expect(transport.requests).toHaveLength(2);
  });
});

describe('UserGroupClient slot release', () => {
  it('gives the single slot back after an abort in flight, a synchronous throw, a bad answer and a deadline', async () => {
    let step = 0;
    const transport: Transport = (request) => {
      step += 1;
      if (step === 1) return hanging()(request);
      if (step === 2) throw new Error('sync boom');
      if (step === 3) return Promise.resolve(reply(200, '<html>'));
      if (step === 4) return hanging(true)(request);
      return Promise.resolve(created);
    };
    const { client } = makeClient(transport, { maxInFlight: 1, maxAttempts: 1 });
    const controller = new AbortController();
    const aborted = failure(client.getOrCreateUserGroup(INPUT, { signal: controller.signal }));
    await vi.waitFor(() => expect(step).toBe(1));
    controller.abort();
    expect((await aborted).code).toBe('aborted');
    expect((await failure(client.getOrCreateUserGroup(INPUT))).code).toBe('network');
    expect((await failure(client.getOrCreateUserGroup(INPUT))).code).toBe('malformed_response');
    const late = new UserGroupClient({ baseUrl: 'http://vendor.test', apiToken: API_TOKEN, transport, maxInFlight: 1, deadlineMs: 30 });
    expect((await failure(late.getOrCreateUserGroup(INPUT))).code).toBe('deadline_exceeded');
    await expect(late.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ success: 1 });
    await expect(client.getOrCreateUserGroup(INPUT)).resolves.toMatchObject({ success: 1 });
  });
});

describe('UserGroupClient keeps secrets out of errors', () => {
  const leaks = (error: unknown, ...secrets: string[]) => {
    const text = `${String(error)} ${inspect(error, { depth: 20 })} ${JSON.stringify(error)}`;
    return secrets.filter((s) => text.includes(s));
  };

  it('redacts a transport error that quotes the API token, in message and cause chain', async () => {
    const inner = new Error(`proxy refused Authorization: Token ${API_TOKEN}`);
    const outer = new Error(`connect refused for Token ${API_TOKEN}`, { cause: inner });
    const error = await failure(makeClient(scripted(outer), { maxAttempts: 1 }).client.getOrCreateUserGroup(INPUT));
    expect(error.code).toBe('network');
    expect(leaks(error, API_TOKEN)).toEqual([]);
  });

  it('redacts a typed error a transport throws', async () => {
    const thrown = new UserGroupApiError('malformed_response', `bad answer for ${API_TOKEN}`, { status: 200 });
    const error = await failure(makeClient(scripted(thrown)).client.getOrCreateUserGroup(INPUT));
    expect(error).toMatchObject({ code: 'malformed_response', status: 200 });
    expect(leaks(error, API_TOKEN)).toEqual([]);
  });

  it('redacts response snippets echoing the API token or any group token', async () => {
    const body = { success: 0, message: `key ${API_TOKEN} refused`, user_group: { token: 'ugt-secret' }, current_token: 'ugt-1' };
    for (const status of [200, 500]) {
      const error = await failure(makeClient(scripted(reply(status, body)), { maxAttempts: 1 }).client.rotateUserGroupToken('ugt-1'));
      expect(error.message).toContain('[redacted]');
      expect(leaks(error, API_TOKEN, 'ugt-secret', 'ugt-1')).toEqual([]);
    }
  });

  it('redacts a transport error that carries the API token in its own properties, not its message', async () => {
    const withHeaders = Object.assign(new Error('request failed'), { request: { headers: { authorization: `Token ${API_TOKEN}` } } });
    const aggregate = new AggregateError([new Error(`connect failed for ${API_TOKEN}`)], 'all attempts failed');
    const plain = { message: 'not an Error', config: { apiToken: API_TOKEN } };
    for (const thrown of [withHeaders, aggregate, plain]) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the test is about a transport that rejects with a non-Error.
      const transport = scripted(() => Promise.reject(thrown));
      const error = await failure(makeClient(transport, { maxAttempts: 1 }).client.getOrCreateUserGroup(INPUT));
      expect(error.code).toBe('network');
      expect(leaks(error, API_TOKEN)).toEqual([]);
    }
  });

  it('keeps the caller abort reason but redacts a token in it', async () => {
    const error = await failure(makeClient(scripted(created)).client.getOrCreateUserGroup(INPUT, { signal: AbortSignal.abort(new Error(API_TOKEN)) }));
    expect(leaks(error, API_TOKEN)).toEqual([]);
  });
});

describe('UserGroupClient caller mistakes', () => {
  it.each([
    null,
    'acme',
    [],
    {},
    { ...INPUT, name: '' },
    { ...INPUT, name: 5 },
    { ...INPUT, user_group_id: '' },
    { ...INPUT, user_group_id: undefined },
    { ...INPUT, mapping: null },
    { ...INPUT, mapping: { a: 1 } },
    { ...INPUT, mapping: ['x'] },
    { ...INPUT, properties: 'x' },
    { ...INPUT, properties: new Map() },
    { ...INPUT, properties: { big: 1n } },
    { ...INPUT, properties: { big: 'x'.repeat(300 * 1024) } },
  ])('rejects bad input %# with a TypeError and sends nothing', async (input) => {
    const transport = scripted(created);
    const { client } = makeClient(transport);
    await expect(client.getOrCreateUserGroup(input as never)).rejects.toThrow(TypeError);
    await expect(client.updateUserGroup(input as never)).rejects.toThrow(TypeError);
    expect(transport.requests).toHaveLength(0);
  });

  it('sends /api/user the empty mapping its spec requires when the input manages none', async () => {
    const transport = scripted(created, updated);
    const { client } = makeClient(transport);
    const { mapping: _unmanaged, ...noMapping } = INPUT;
    await client.getOrCreateUserGroup(noMapping);
    await client.updateUserGroup(noMapping);
    expect(transport.requests.map((r) => JSON.parse(r.body) as unknown)).toEqual([
      { ...noMapping, mapping: {} },
      { ...noMapping, mapping: {} },
    ]);
  });

  it('rejects a cyclic properties object', async () => {
    const properties: Record<string, unknown> = {};
    properties.self = properties;
    await expect(makeClient(scripted(created)).client.getOrCreateUserGroup({ ...INPUT, properties })).rejects.toThrow(/JSON/);
  });

  it.each([undefined, '', 42, 'x'.repeat(5000)])('rejects the rotate token %#', async (token) => {
    await expect(makeClient(scripted(rotated)).client.rotateUserGroupToken(token as never)).rejects.toThrow(TypeError);
  });

  it.each([null, 'x', { signal: 'no' }, { signal: {} }])('rejects call options %#', async (options) => {
    await expect(makeClient(scripted(created)).client.getOrCreateUserGroup(INPUT, options as never)).rejects.toThrow(TypeError);
  });

  it('treats a transport that resolves with garbage as a malformed response', async () => {
    const transport = (async () => ({ status: '200' })) as unknown as Transport;
    await expect(makeClient(transport).client.getOrCreateUserGroup(INPUT)).rejects.toMatchObject({ code: 'malformed_response' });
  });

  it('maps a transport that throws synchronously to "network"', async () => {
    const transport = (() => {
      throw new Error('boom');
    }) as unknown as Transport;
    await expect(makeClient(transport, { maxAttempts: 1 }).client.getOrCreateUserGroup(INPUT)).rejects.toMatchObject({ code: 'network' });
  });

  it('refuses calls after close() and leaves an injected transport alone', async () => {
    const close = vi.fn();
    const transport = Object.assign(scripted(created), { close });
    const { client } = makeClient(transport);
    client.close();
    await expect(client.getOrCreateUserGroup(INPUT)).rejects.toThrow(/closed/);
    expect(close).not.toHaveBeenCalled();
  });
});
