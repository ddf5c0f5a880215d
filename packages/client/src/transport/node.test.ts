import { afterEach, describe, expect, it } from 'vitest';
import { UserGroupApiError, UserGroupClient } from '../index.js';
import { createNodeTransport, type NodeTransport } from './node.js';
import { json, startRawServer } from '../../test/support/raw-server.js';

const API_TOKEN = 'secret-api-token-123';
const GROUP = { team_id: 7, token: 'ugt-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' } };
const INPUT = { name: 'Acme Corp', user_group_id: 'acme', mapping: { sales: 'ds-1' }, properties: { region: 'EU', note: 'grüße ✓ "quoted"' } };

type RawServer = Awaited<ReturnType<typeof startRawServer>>;
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
async function server(handle: Parameters<typeof startRawServer>[0]): Promise<RawServer> {
  const started = await startRawServer(handle);
  cleanups.push(() => started.close());
  return started;
}
function transport(options?: Parameters<typeof createNodeTransport>[0]): NodeTransport {
  const created = createNodeTransport(options);
  cleanups.push(() => created.close());
  return created;
}
const request = (url: string, body: string, method: 'GET' | 'PUT' | 'POST' = 'GET') => ({
  method,
  url: `${url}/api/user`,
  headers: { Authorization: `Token ${API_TOKEN}`, 'Content-Type': 'application/json' },
  body,
  signal: new AbortController().signal,
});

describe('createNodeTransport over a real socket', () => {
  it('sends the JSON body of a GET byte for byte, with the headers', async () => {
    const s = await server((_req, res) => json(res, 200, { ok: true }));
    const body = JSON.stringify(INPUT);
    const response = await transport()(request(s.url, body));
    expect(response.status).toBe(200);
    const [seen] = s.seen;
    expect(seen?.method).toBe('GET');
    expect(seen?.url).toBe('/api/user');
    expect(seen?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen?.headers.authorization).toBe(`Token ${API_TOKEN}`);
    expect(seen?.headers['content-type']).toBe('application/json');
    expect(seen?.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it.each(['PUT', 'POST'] as const)('sends the body of a %s', async (method) => {
    const s = await server((_req, res) => json(res, 200, {}));
    await transport()(request(s.url, '{"current_token":"t"}', method));
    expect(s.seen[0]?.method).toBe(method);
    expect(s.seen[0]?.body.toString()).toBe('{"current_token":"t"}');
  });

  it('returns status, lower-case headers and the body of any status', async () => {
    const s = await server((_req, res) => json(res, 503, { success: 0 }, { 'Retry-After': '3', 'X-Mixed-Case': 'v' }));
    const response = await transport()(request(s.url, '{}'));
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('3');
    expect(response.headers['x-mixed-case']).toBe('v');
    expect(JSON.parse(response.body)).toEqual({ success: 0 });
  });

  it('reuses one keep-alive socket for sequential requests', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const t = transport();
    await t(request(s.url, '{}'));
    await t(request(s.url, '{}'));
    await t(request(s.url, '{}'));
    expect(s.connections()).toBe(1);
    expect(s.seen[0]?.socket).toBe(s.seen[2]?.socket);
  });

  it('opens a socket per request when keepAlive is false', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const t = transport({ keepAlive: false });
    await t(request(s.url, '{}'));
    await t(request(s.url, '{}'));
    expect(s.connections()).toBe(2);
  });

  it('close() destroys the idle keep-alive sockets', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const t = transport();
    await t(request(s.url, '{}'));
    const socket = s.seen[0]?.socket;
    const closed = new Promise((resolve) => socket?.once('close', resolve));
    t.close();
    await closed;
    await expect(t(request(s.url, '{}'))).rejects.toThrow(/closed/);
  });

  it('rejects when the server destroys the socket without answering', async () => {
    const s = await server((req) => req.socket.destroy());
    await expect(transport()(request(s.url, '{}'))).rejects.toThrow();
  });

  it('rejects when the connection drops in the middle of the body', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"success":');
      setImmediate(() => res.socket?.destroy());
    });
    await expect(transport()(request(s.url, '{}'))).rejects.toThrow();
  });

  it('cuts off a body larger than maxResponseBytes, announced or streamed', async () => {
    const big = 'x'.repeat(2048);
    const announced = await server((_req, res) => json(res, 200, big));
    const streamed = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(big);
      res.end(big);
    });
    const t = transport({ maxResponseBytes: 1024 });
    for (const s of [announced, streamed]) {
      const error = await t(request(s.url, '{}')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserGroupApiError);
      expect((error as UserGroupApiError).code).toBe('malformed_response');
    }
  });

  it('refuses a body that is not UTF-8', async () => {
    const s = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '2' });
      res.end(Buffer.from([0xc3, 0x28]));
    });
    await expect(transport()(request(s.url, '{}'))).rejects.toMatchObject({ code: 'malformed_response', status: 200 });
  });

  it('rejects at once when the signal is already aborted, sending nothing', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(transport()({ ...request(s.url, '{}'), signal: controller.signal })).rejects.toBe(reason);
    expect(s.seen).toHaveLength(0);
  });

  it.each([{ maxSockets: 0 }, { maxSockets: 1.5 }, { maxResponseBytes: -1 }, { keepAlive: 'yes' }])('refuses bad options %j', (options) => {
    expect(() => createNodeTransport(options as never)).toThrow(TypeError);
  });

  it('refuses a non-http URL', async () => {
    await expect(transport()({ ...request('http://x', '{}'), url: 'ftp://127.0.0.1/api/user' })).rejects.toThrow(TypeError);
  });
});

describe('UserGroupClient over the default transport', () => {
  function client(url: string, options: Partial<ConstructorParameters<typeof UserGroupClient>[0]> = {}): UserGroupClient {
    const created = new UserGroupClient({ baseUrl: url, apiToken: API_TOKEN, sleep: async () => undefined, ...options });
    cleanups.push(() => created.close());
    return created;
  }

  it('gets or creates a group with a GET whose JSON body the server receives', async () => {
    const s = await server((_req, res, seen) => {
      const input = JSON.parse(seen.body.toString()) as typeof INPUT;
      json(res, 200, { success: 1, new_user_group: true, user_group: { ...GROUP, properties: input.properties } });
    });
    const result = await client(s.url).getOrCreateUserGroup(INPUT);
    expect(result.user_group.token).toBe('ugt-1');
    expect(JSON.parse(s.seen[0]?.body.toString() ?? '')).toEqual(INPUT);
    expect(s.seen[0]?.method).toBe('GET');
    expect(s.seen[0]?.headers.authorization).toBe(`Token ${API_TOKEN}`);
  });

  it('keeps one socket across calls', async () => {
    const s = await server((_req, res) => json(res, 200, { success: 1, new_user_group: false, user_group: GROUP }));
    const c = client(s.url);
    await c.getOrCreateUserGroup(INPUT);
    await c.getOrCreateUserGroup(INPUT);
    expect(s.connections()).toBe(1);
  });

  it('maps a server that never answers to "timeout", once per attempt', async () => {
    const s = await server(() => undefined);
    const error = await client(s.url, { timeoutMs: 50, maxAttempts: 2 })
      .getOrCreateUserGroup(INPUT)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'timeout', retryable: true });
    expect(s.seen).toHaveLength(2);
  });

  it('maps a dropped connection to "network" and retries it', async () => {
    const s = await server((req, res) =>
      s.seen.length === 1 ? req.socket.destroy() : json(res, 200, { success: 1, new_user_group: false, user_group: GROUP }),
    );
    const result = await client(s.url).getOrCreateUserGroup(INPUT);
    expect(result.user_group.provided_id).toBe('acme');
    expect(s.seen).toHaveLength(2);
  });

  it('reports a dropped rotate as "network" without retrying it', async () => {
    const s = await server((req) => req.socket.destroy());
    const error = await client(s.url)
      .rotateUserGroupToken('ugt-1')
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network' });
    expect(String((error as Error).message)).not.toContain(API_TOKEN);
    expect(s.seen).toHaveLength(1);
  });

  it('maps a refused connection to "network"', async () => {
    const s = await server(() => undefined);
    const url = s.url;
    await s.close();
    const error = await client(url, { maxAttempts: 1 })
      .getOrCreateUserGroup(INPUT)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'network', retryable: true });
  });

  it('maps an oversized answer to "malformed_response"', async () => {
    const s = await server((_req, res) => json(res, 200, { success: 1, padding: 'x'.repeat(1024 * 1024 + 10) }));
    await expect(client(s.url).getOrCreateUserGroup(INPUT)).rejects.toMatchObject({ code: 'malformed_response', status: 200 });
  });
});
