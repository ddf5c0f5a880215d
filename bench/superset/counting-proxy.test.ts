import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUEST_TOKEN_PATH, guestTokenPair, startCountingProxy, type CountingProxy } from './counting-proxy.js';

describe('guestTokenPair', () => {
  it('names the dashboard and the row-level security a guest-token request asks for', () => {
    expect(guestTokenPair(JSON.stringify({ user: {}, resources: [{ type: 'dashboard', id: 'd1' }], rls: [{ clause: "customer_id = 'a'" }] }))).toBe(
      "d1 customer_id = 'a'",
    );
  });
  it.each(['', 'not json', '[]', 'null', '{"resources": []}', '{"resources": "x"}'])('gives nothing for %j', (body) => {
    expect(guestTokenPair(body)).toBeUndefined();
  });
});

describe('startCountingProxy', () => {
  let upstream: ReturnType<typeof createServer>;
  let proxy: CountingProxy;
  beforeAll(async () => {
    upstream = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        response.setHeader('set-cookie', 'session=s1; HttpOnly');
        response.writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ method: request.method, url: request.url, host: request.headers.host, body: Buffer.concat(chunks).toString() }));
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    proxy = await startCountingProxy(`http://127.0.0.1:${(upstream.address() as AddressInfo).port}`);
  });
  afterAll(async () => {
    await proxy.stop();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('forwards requests whole (status, body, cookies) and counts each, guest-token calls by pair', async () => {
    proxy.reset();
    const body = JSON.stringify({ resources: [{ id: 'd1' }], rls: [{ clause: 'c' }] });
    const minted = await fetch(`${proxy.url}${GUEST_TOKEN_PATH}?q=1`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    expect(minted.status).toBe(200);
    expect(minted.headers.get('set-cookie')).toBe('session=s1; HttpOnly');
    expect(await minted.json()).toMatchObject({ method: 'POST', url: `${GUEST_TOKEN_PATH}?q=1`, body });
    expect((await fetch(`${proxy.url}/missing`)).status).toBe(404);
    await fetch(`${proxy.url}${GUEST_TOKEN_PATH}`, { method: 'POST', body: '{broken' });
    expect(proxy.calls()).toEqual([
      { method: 'POST', path: GUEST_TOKEN_PATH, pair: 'd1 c' },
      { method: 'GET', path: '/missing' },
      { method: 'POST', path: GUEST_TOKEN_PATH },
    ]);
  });

  it('answers 502 when the vendor is gone, and still counts the call', async () => {
    const dead = await startCountingProxy('http://127.0.0.1:9');
    try {
      expect((await fetch(`${dead.url}/api/v1/security/login`, { method: 'POST', body: '{}' })).status).toBe(502);
      expect(dead.calls()).toHaveLength(1);
    } finally {
      await dead.stop();
    }
  });
});
