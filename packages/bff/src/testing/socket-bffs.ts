import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';

/**
 * BFF apps served on real sockets (127.0.0.1, a free port) for one test file, each closed
 * together with what it uses (its client, its fake vendor) by `closeAll` in `afterEach`.
 */
export function socketBffs() {
  const open: Array<{ server: ServerType; dispose: Array<() => unknown> }> = [];
  return {
    /** Serves `app`; resolves with `http://127.0.0.1:PORT`. */
    serve(app: Hono, ...dispose: Array<() => unknown>): Promise<string> {
      return new Promise((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info: AddressInfo) => {
          open.push({ server, dispose });
          resolve(`http://127.0.0.1:${info.port}`);
        });
      });
    },
    async closeAll(): Promise<void> {
      for (const { server, dispose } of open.splice(0)) {
        if ('closeAllConnections' in server) server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
        for (const close of dispose) await close();
      }
    },
  };
}
