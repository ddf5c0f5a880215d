import { afterEach, describe, expect, it } from 'vitest';
import { UserGroupApiError, UserGroupClient } from '../index.js';
import { json, startRawServer } from '../../test/support/raw-server.js';
import { createFetchTransport } from './fetch.js';
import * as web from '../platform/web.js';

const API_TOKEN = 'secret-api-token-123';
const CUSTOMER = { token: 'ct-1', name: 'Acme Corp', provided_id: 'acme', properties: { region: 'EU' } };
const INPUT = { name: 'Acme Corp', user_group_id: 'acme', mapping: {}, properties: { region: 'EU', note: 'grüße ✓ "quoted"' } };

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});
async function server(handle: Parameters<typeof startRawServer>[0]) {
  const started = await startRawServer(handle);
  cleanups.push(() => started.close());
  return started;
}
const request = (url: string, body: string, method: 'GET' | 'PUT' | 'POST' = 'POST') => ({
  method,
  url: `${url}/api/create_customer/`,
  headers: { 'Explo-Authorization': `Token ${API_TOKEN}`, 'Content-Type': 'application/json' },
  body,
  signal: new AbortController().signal,
});

describe('createFetchTransport over a real socket (the runtime’s fetch)', () => {
  it.each(['POST', 'PUT'] as const)('sends the JSON body of a %s byte for byte, with the headers', async (method) => {
    const s = await server((_req, res) => json(res, 200, { ok: true }));
    const body = JSON.stringify(INPUT);
    const response = await createFetchTransport()(request(s.url, body, method));
    expect(response.status).toBe(200);
    const [seen] = s.seen;
    expect(seen?.method).toBe(method);
    expect(seen?.url).toBe('/api/create_customer/');
    expect(seen?.body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen?.headers['explo-authorization']).toBe(`Token ${API_TOKEN}`);
    expect(seen?.headers['content-type']).toBe('application/json');
  });

  it('refuses a GET (fetch cannot send its body), sending nothing, and says so on the transport', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const transport = createFetchTransport();
    expect(transport.getWithBody).toBe(false);
    await expect(transport(request(s.url, '{}', 'GET'))).rejects.toThrow(/GET with a body/);
    expect(s.seen).toHaveLength(0);
  });

  it('returns status, lower-case headers and the body of any status, and follows no redirect', async () => {
    const s = await server((req, res) =>
      req.url === '/moved' ? json(res, 200, { followed: true }) : json(res, 503, { success: 0 }, { 'Retry-After': '3', 'X-Mixed-Case': 'v' }),
    );
    const response = await createFetchTransport()(request(s.url, '{}'));
    expect(response).toMatchObject({ status: 503, headers: { 'retry-after': '3', 'x-mixed-case': 'v' } });
    expect(JSON.parse(response.body)).toEqual({ success: 0 });
    const redirecting = await server((_req, res) => res.writeHead(302, { location: `${s.url}/moved`, 'content-length': '0' }).end());
    expect((await createFetchTransport()(request(redirecting.url, '{}'))).status).toBe(302);
    expect(s.seen.map((r) => r.url)).toEqual(['/api/create_customer/']);
  });

  it('rejects when the server drops the connection, before or during the body', async () => {
    const before = await server((req) => req.socket.destroy());
    await expect(createFetchTransport()(request(before.url, '{}'))).rejects.toThrow();
    const during = await server((_req, res) => {
      res.writeHead(200, { 'content-length': '100' });
      res.write('{"success":');
      setImmediate(() => res.socket?.destroy());
    });
    await expect(createFetchTransport()(request(during.url, '{}'))).rejects.toThrow();
  });

  it('cuts off a body larger than maxResponseBytes, announced or streamed, and refuses one that is not UTF-8', async () => {
    const big = 'x'.repeat(2048);
    const announced = await server((_req, res) => json(res, 200, big));
    const streamed = await server((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(big);
      res.end(big);
    });
    for (const s of [announced, streamed]) {
      const error = await createFetchTransport({ maxResponseBytes: 1024 })(request(s.url, '{}')).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(UserGroupApiError);
      expect(error).toMatchObject({ code: 'malformed_response', status: 200 });
    }
    const latin = await server((_req, res) => res.writeHead(200, { 'content-length': '2' }).end(Buffer.from([0xc3, 0x28])));
    await expect(createFetchTransport()(request(latin.url, '{}'))).rejects.toMatchObject({ code: 'malformed_response', status: 200 });
  });

  it('rejects at once when the signal is already aborted, and refuses a non-http URL', async () => {
    const s = await server((_req, res) => json(res, 200, {}));
    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    await expect(createFetchTransport()({ ...request(s.url, '{}'), signal: controller.signal })).rejects.toThrow();
    await expect(createFetchTransport()({ ...request(s.url, '{}'), url: 'ftp://127.0.0.1/x' })).rejects.toThrow(TypeError);
    expect(s.seen).toHaveLength(0);
  });

  it.each([{ maxResponseBytes: 0 }, { maxResponseBytes: 1.5 }, { fetch: 'no' }])('refuses bad options %j', (options) => {
    expect(() => createFetchTransport(options as never)).toThrow(TypeError);
  });
});

describe('UserGroupClient over fetch', () => {
  it('speaks the Customer API (POSTs only), retries included', async () => {
    const s = await server((req, res) =>
      s.seen.length === 1 ? req.socket.destroy() : json(res, 200, { success: 1, new_customer: false, customer: CUSTOMER }),
    );
    const client = new UserGroupClient({
      baseUrl: s.url,
      apiToken: API_TOKEN,
      api: 'explo-customer',
      transport: createFetchTransport(),
      sleep: async () => undefined,
    });
    const result = await client.getOrCreateUserGroup(INPUT);
    expect(result.user_group.token).toBe('ct-1');
    expect(s.seen.map((r) => r.method)).toEqual(['POST', 'POST']);
  });

  it('refuses the user group service API at construction: its get-or-create is a GET with a body', () => {
    const build = () => new UserGroupClient({ baseUrl: 'http://127.0.0.1:1', apiToken: API_TOKEN, transport: createFetchTransport() });
    expect(build).toThrow(TypeError);
    expect(build).toThrow(/GET with a JSON body, which fetch refuses to send; use api: 'explo-customer'/);
  });
});

describe('the client’s web platform (Workers, the Next.js edge runtime)', () => {
  it('computes accountId’s SHA-256 exactly as node:crypto does', async () => {
    const node = await import('../platform/node.js');
    for (const text of ['', 'a', 'http://127.0.0.1:8790/api/user\ndev-customer-key', 'grüße ✓ 🦄', '\uD800 lone', 'x'.repeat(100_000)]) {
      expect(web.sha256Hex(text)).toBe(node.sha256Hex(text));
    }
  });

  it('makes fetch the default transport, and createNodeTransport says it needs Node', () => {
    const transport = web.defaultTransport(4);
    expect(transport.getWithBody).toBe(false);
    expect(() => transport.close()).not.toThrow();
    expect(() => web.createNodeTransport()).toThrow(/needs Node.js/);
  });
});
