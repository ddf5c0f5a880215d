import { afterAll, describe, expect, it } from 'vitest';
import { connect, type AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { createBffApp } from '../app.js';
import { API_TOKEN, captureLogs, FakeUpstream, findLeaks, session, SESSION_SECRET } from '../../test/support/fixtures.js';

afterAll(() => expect(findLeaks()).toEqual([]));

/** One raw HTTP/1.1 exchange: `parts` are written one after another, each after the previous flushed and a turn passed. */
async function exchange(port: number, parts: string[]): Promise<string> {
  const socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (text += chunk));
  const closed = new Promise<void>((resolve) => socket.once('close', resolve));
  for (const part of parts) {
    await new Promise<void>((resolve) => socket.write(part, () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await closed;
  return text;
}

describe('request bodies read from Node’s request stream', () => {
  it('answers a body sent with its headers and one sent later alike, and still refuses a bad one', async () => {
    const app = createBffApp({
      upstream: new FakeUpstream(),
      session: { secret: SESSION_SECRET },
      logger: captureLogs().logger,
      secrets: [API_TOKEN],
      rateLimit: false,
    });
    let server: ServerType | undefined;
    const port = await new Promise<number>((resolve) => {
      server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => resolve(info.port));
    });
    try {
      const jwt = await session();
      const head = (length: number) =>
        `POST /embed/token HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: close\r\ncontent-type: application/json\r\nauthorization: Bearer ${jwt}\r\ncontent-length: ${length}\r\n\r\n`;

      const together = await exchange(port, [`${head(2)}{}`]);
      expect(together).toMatch(/^HTTP\/1\.1 200 /);
      expect(together).toContain('"token"');

      const later = await exchange(port, [head(2), '{', '}']);
      expect(later).toMatch(/^HTTP\/1\.1 200 /);

      const array = await exchange(port, [`${head(2)}[]`]);
      expect(array).toMatch(/^HTTP\/1\.1 400 /);
      const field = await exchange(port, [`${head(13)}{"group":"x"}`]);
      expect(field).toMatch(/^HTTP\/1\.1 400 /);
      const invalid = await exchange(port, [head(2), '{x']);
      expect(invalid).toMatch(/^HTTP\/1\.1 400 /);
    } finally {
      await new Promise((r) => server!.close(r));
    }
  });
});
