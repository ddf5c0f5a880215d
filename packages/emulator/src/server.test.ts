import { request as httpRequest, Agent } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from './server.js';

interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** node:http, because fetch refuses to send a GET with a body. */
function send(
  url: string,
  method: string,
  body: string | Buffer | undefined,
  options: { chunked?: boolean; agent?: Agent; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: 'Token dev-customer-key', 'Content-Type': 'application/json', ...options.headers };
    if (body !== undefined && !options.chunked) headers['Content-Length'] = String(Buffer.byteLength(body));
    // Node does not chunk a GET by default; without this the body would be sent unframed.
    if (options.chunked) headers['Transfer-Encoding'] = 'chunked';
    const req = httpRequest(`${url}/api/user`, { method, headers, agent: options.agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    if (body !== undefined && options.chunked) {
      const text = Buffer.from(body);
      const half = Math.floor(text.length / 2);
      req.write(text.subarray(0, half));
      setTimeout(() => req.end(text.subarray(half)), 5);
    } else req.end(body);
  });
}

/** Writes `text` on a fresh socket and resolves with everything the server sent until it closed. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.end(text);
  });
}

const acme = JSON.stringify({ name: 'Acme', user_group_id: 'acme', mapping: { sales: 'ds' }, properties: { region: 'EU' } });

let running: RunningEmulator | undefined;
afterEach(async () => {
  await running?.close();
  running = undefined;
});

describe('startEmulator on a real socket', () => {
  it('reads the GET body from the raw Node request', async () => {
    running = await startEmulator({ port: 0 });
    expect(running.url).toBe(`http://127.0.0.1:${running.port}`);
    const first = await send(running.url, 'GET', acme);
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toMatchObject({
      success: 1,
      new_user_group: true,
      user_group: { name: 'Acme', provided_id: 'acme', properties: { region: 'EU' } },
    });
    const second = await send(running.url, 'GET', acme);
    expect(JSON.parse(second.body).new_user_group).toBe(false);
  });

  it('reads a chunked GET body, and PUT and POST bodies, over one keep-alive connection', async () => {
    running = await startEmulator({ port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const created = JSON.parse((await send(running.url, 'GET', acme, { chunked: true, agent })).body);
      expect(created.new_user_group).toBe(true);
      const updated = await send(running.url, 'PUT', JSON.stringify({ name: 'Acme 2', user_group_id: 'acme' }), { agent });
      expect(JSON.parse(updated.body).user_group.name).toBe('Acme 2');
      const rotated = await send(running.url, 'POST', JSON.stringify({ current_token: created.user_group.token }), { agent });
      expect(JSON.parse(rotated.body).user_group.token).not.toBe(created.user_group.token);
    } finally {
      agent.destroy();
    }
  });

  it('answers a GET without a body with 400 bad_json', async () => {
    running = await startEmulator({ port: 0 });
    const response = await send(running.url, 'GET', undefined);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error.code).toBe('bad_json');
  });

  it('answers 413 to an oversized GET body, declared or chunked, and closes the connection', async () => {
    running = await startEmulator({ port: 0, maxBodyBytes: 1024 });
    const big = JSON.stringify({ name: 'A', user_group_id: 'a', properties: { blob: 'x'.repeat(5000) } });
    const declared = await send(running.url, 'GET', big);
    expect(declared.status).toBe(413);
    expect(declared.headers.connection).toBe('close');
    const chunked = await send(running.url, 'GET', big, { chunked: true });
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body).error.code).toBe('payload_too_large');
    expect(running.emulator.stats().groups).toBe(0);
  });

  it('always lets the client read the 413 for a 3 MB body, declared or chunked, GET or PUT, never a reset', async () => {
    running = await startEmulator({ port: 0 });
    const big = Buffer.alloc(3 * 1024 * 1024, 'x');
    for (let round = 0; round < 15; round++) {
      for (const method of ['GET', 'PUT']) {
        for (const chunked of [false, true]) {
          const response = await send(running.url, method, big, { chunked });
          expect({ method, chunked, status: response.status }).toEqual({ method, chunked, status: 413 });
          expect(JSON.parse(response.body).error.code).toBe('payload_too_large');
        }
      }
    }
  });

  it('sends X-Content-Type-Options: nosniff with every JSON answer, success, refusal or parser error', async () => {
    running = await startEmulator({ port: 0, admin: true });
    const answers = [
      await send(running.url, 'GET', acme),
      await send(running.url, 'GET', acme, { headers: { Authorization: 'Token wrong' } }),
      await send(running.url, 'PUT', '{', {}),
      await send(running.url, 'GET', Buffer.alloc(300 * 1024, 'x')),
      await send(running.url, 'DELETE', undefined),
    ];
    const stats = await fetch(`${running.url}/__emulator/stats`);
    const missing = await fetch(`${running.url}/nowhere`);
    const parserError = await rawExchange(running.port, 'GET /api/user HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n');
    expect(answers.map((a) => [a.status, a.headers['x-content-type-options']])).toEqual([
      [200, 'nosniff'],
      [401, 'nosniff'],
      [400, 'nosniff'],
      [413, 'nosniff'],
      [405, 'nosniff'],
    ]);
    expect([stats.headers.get('x-content-type-options'), missing.headers.get('x-content-type-options')]).toEqual(['nosniff', 'nosniff']);
    expect(parserError).toMatch(/^HTTP\/1\.1 400 [^]*\r\nX-Content-Type-Options: nosniff\r\n/);
  });

  it('answers non-UTF-8 GET bytes with 400', async () => {
    running = await startEmulator({ port: 0 });
    const response = await send(running.url, 'GET', Buffer.from([0x7b, 0xc3, 0x28, 0x7d]));
    expect(response.status).toBe(400);
  });

  it('drops the connection without an answer when the drop fault fires', async () => {
    running = await startEmulator({ port: 0, faults: { dropRate: 1 } });
    await expect(send(running.url, 'GET', acme)).rejects.toThrow(/socket hang up|ECONNRESET/);
    // The operation happened before the answer was lost.
    expect(running.emulator.stats().groups).toBe(1);
  });

  it('survives a client that disconnects in the middle of a GET body', async () => {
    running = await startEmulator({ port: 0 });
    const socket = connect(running.port, '127.0.0.1');
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
    socket.write(
      'GET /api/user HTTP/1.1\r\nHost: x\r\nAuthorization: Token dev-customer-key\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"name":',
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    socket.destroy();
    const after = await send(running.url, 'GET', acme);
    expect(after.status).toBe(200);
  });

  it.each([
    ['a Content-Length too large to be a number', 'Content-Length: 99999999999999999999', 400, 'bad_json'],
    ['a Content-Length that is not a number', 'Content-Length: abc', 400, 'bad_json'],
    ['two different Content-Lengths', 'Content-Length: 2\r\nContent-Length: 3', 400, 'bad_json'],
    ['a header block over the limit', `X-Big: ${'x'.repeat(20_000)}`, 431, 'payload_too_large'],
  ])('answers a request Node cannot parse (%s) with success: 0 as JSON, not a bare status', async (_label, header, status, code) => {
    running = await startEmulator({ port: 0 });
    const answer = await rawExchange(
      running.port,
      `PUT /api/user HTTP/1.1\r\nHost: x\r\nAuthorization: Token dev-customer-key\r\nContent-Type: application/json\r\n${header}\r\n\r\n{}`,
    );
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Header Fields Too Large'}`);
    expect(head.toLowerCase()).toContain('content-type: application/json');
    expect(head.toLowerCase()).toContain('connection: close');
    expect(JSON.parse(body)).toEqual({ success: 0, error: { code, message: expect.any(String) } });
    expect(running.emulator.stats().groups).toBe(0);
  });

  it('answers duplicated Authorization headers with 401, and accepts a UTF-8 charset, over a socket', async () => {
    running = await startEmulator({ port: 0 });
    const twice = await rawExchange(
      running.port,
      `GET /api/user HTTP/1.1\r\nHost: x\r\nConnection: close\r\nAuthorization: Token dev-customer-key\r\nAuthorization: Token dev-customer-key\r\nContent-Type: application/json\r\nContent-Length: ${acme.length}\r\n\r\n${acme}`,
    );
    expect(twice.split('\r\n')[0]).toBe('HTTP/1.1 401 Unauthorized');
    expect(twice).not.toContain('dev-customer-key');
    const charset = await send(running.url, 'GET', acme, { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    expect(charset.status).toBe(200);
    expect(running.emulator.stats().groups).toBe(1);
  });

  it('rejects a bad port and a port already in use', async () => {
    await expect(startEmulator({ port: 70_000 })).rejects.toThrow(TypeError);
    running = await startEmulator({ port: 0 });
    await expect(startEmulator({ port: running.port })).rejects.toThrow(/EADDRINUSE/);
  });
});
