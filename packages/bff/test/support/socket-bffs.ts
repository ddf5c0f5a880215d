import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { Hono } from 'hono';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { UserGroupClient, type UserGroupClientOptions } from '@embedded-dashboard/client';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { createBffApp } from '../../src/app.js';
import { createBffNodeListener } from '../../src/http/node-listener.js';
import type { BffAppOptions } from '../../src/options.js';
import { API_TOKEN, captureLogs, record, SESSION_SECRET } from './fixtures.js';

/**
 * BFF apps served on real sockets (127.0.0.1, a free port) for one test file, each closed
 * together with what it uses (its client, its fake vendor) by `closeAll` in `afterEach`.
 */
export function socketBffs() {
  const open: Array<{ server: ServerType; dispose: Array<() => unknown> }> = [];
  const listening = (server: ServerType, dispose: Array<() => unknown>, resolve: (url: string) => void) => {
    open.push({ server, dispose });
    resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  };
  return {
    /** Serves `app` with `@hono/node-server`; resolves with `http://127.0.0.1:PORT`. */
    serve(app: Hono, ...dispose: Array<() => unknown>): Promise<string> {
      return new Promise((resolve) => {
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => listening(server, dispose, resolve));
      });
    },
    /** Serves a Node request listener (as the CLI serves the BFF); resolves with `http://127.0.0.1:PORT`. */
    serveListener(listener: (...args: Parameters<RequestListener>) => unknown, ...dispose: Array<() => unknown>): Promise<string> {
      return new Promise((resolve) => {
        const server = createServer((req, res) => void listener(req, res));
        server.listen(0, '127.0.0.1', () => listening(server, dispose, resolve));
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

export interface EmulatorBffsOptions {
  /** A second API key the emulator knows, for the `Testing` environment (the first, `API_TOKEN`, is `Customer`). */
  testingApiToken: string;
  /** The emulator's admin routes. */
  admin?: boolean;
  /** Options of every BFF's client; a `start` call's own come on top. */
  client?: Partial<UserGroupClientOptions>;
  /** `cli`: served through the CLI's Node listener; default: `@hono/node-server`. */
  serveAs?: 'hono' | 'cli';
  /** The emulator's embed secrets (for embed tokens). */
  embedSecrets?: { id: string; value: string }[];
}

/** One BFF of `emulatorBffs().start`: its URL and port, its log lines, and POST with the response recorded for the leak scan. */
export interface EmulatorBff {
  url: string;
  port: number;
  client: UserGroupClient;
  logs: ReturnType<typeof captureLogs>;
  post(path: string, headers: Record<string, string>, body?: unknown): ReturnType<typeof record>;
}

/**
 * The real emulator for one test file (started before its tests, its faults and groups reset
 * after each test, closed after the file) and BFFs on real sockets in front of it through the
 * real client, closed after each test. Call it at the top of a test file: it registers the hooks.
 */
export function emulatorBffs(options: EmulatorBffsOptions) {
  let running: RunningEmulator | undefined;
  const bffs = socketBffs();
  const emulator = (): RunningEmulator => {
    if (!running) throw new Error('the emulator starts in beforeAll');
    return running;
  };
  beforeAll(async () => {
    running = await startEmulator({
      port: 0,
      host: '127.0.0.1',
      ...(options.admin ? { admin: true } : {}),
      ...(options.embedSecrets ? { embedSecrets: options.embedSecrets } : {}),
      apiKeys: [
        { token: API_TOKEN, environment: 'Customer' },
        { token: options.testingApiToken, environment: 'Testing' },
      ],
    });
  });
  afterEach(async () => {
    emulator().emulator.setFaults({});
    await bffs.closeAll();
    emulator().emulator.reset();
  });
  afterAll(async () => {
    await running?.close();
  });
  return {
    /** The emulator's base URL. */
    get url(): string {
      return emulator().url;
    },
    /** The emulator itself: faults, stats, tokens. */
    get emulator(): RunningEmulator['emulator'] {
      return emulator().emulator;
    },
    /** A BFF (session secret `SESSION_SECRET`, logs captured, no rate limit unless `overrides` say). */
    async start(overrides: Partial<BffAppOptions> = {}, apiToken = API_TOKEN, clientOptions: Partial<UserGroupClientOptions> = {}): Promise<EmulatorBff> {
      const client = new UserGroupClient({ baseUrl: emulator().url, apiToken, ...options.client, ...clientOptions });
      const logs = captureLogs();
      const app = createBffApp({ upstream: client, session: { secret: SESSION_SECRET }, logger: logs.logger, rateLimit: false, ...overrides });
      const url =
        options.serveAs === 'cli'
          ? await bffs.serveListener(createBffNodeListener(app, { hostname: '127.0.0.1', logger: logs.logger }), () => client.close())
          : await bffs.serve(app, () => client.close());
      return {
        url,
        port: Number(new URL(url).port),
        client,
        logs,
        post: async (path, headers, body = {}) =>
          record(await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) })),
      };
    },
  };
}
