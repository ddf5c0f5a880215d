import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { createBffApp } from '../app.js';
import { API_TOKEN, captureLogs, FakeUpstream, findLeaks, record, session, SESSION_SECRET } from '../../test/support/fixtures.js';

afterAll(() => expect(findLeaks()).toEqual([]));

describe('inside a Node server that is not Hono (the Express/Fastify pattern)', () => {
  it('serves the BFF routes through getRequestListener next to the host server routes', async () => {
    const app = createBffApp({
      upstream: new FakeUpstream(),
      session: { secret: SESSION_SECRET, cookie: 'sid' },
      logger: captureLogs().logger,
      secrets: [API_TOKEN],
    });
    const bff = getRequestListener(app.fetch);
    const server: Server = createServer((req, res) => {
      if (req.url?.startsWith('/embed/') || req.url === '/readyz') return void bff(req, res);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('host app');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await record(
        await fetch(`${url}/embed/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: `sid=${await session()}`, origin: url },
          body: '{}',
        }),
      );
      expect(res.status).toBe(200);
      expect(Object.keys(res.body as object).sort()).toEqual(['expiresAt', 'serverTime', 'token']);
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      expect(await (await fetch(`${url}/`)).text()).toBe('host app');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
