import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createEmulator, type Emulator } from './emulator.js';
import { answerClientError } from './http/client-error.js';
import type { EmulatorOptions } from './options.js';
import { createMetabaseEmulator, type MetabaseEmulator, type MetabaseEmulatorOptions } from './metabase/index.js';
import { createSupersetEmulator, type SupersetEmulator, type SupersetEmulatorOptions } from './superset/index.js';

export interface StartEmulatorOptions extends EmulatorOptions {
  /** Default `8790`; `0` picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface RunningEmulator {
  /** `http://HOST:PORT` with the real port. */
  url: string;
  port: number;
  emulator: Emulator;
  /** Stops accepting, ends idle keep-alive connections, waits for in-flight requests and writes. */
  close(): Promise<void>;
}

export const DEFAULT_PORT = 8790;
export const DEFAULT_HOST = '127.0.0.1';

/** `http://HOST:PORT`, with IPv6 hosts in brackets. */
export const formatUrl = (host: string, port: number) => `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

/**
 * Serves an emulator on a real socket with `@hono/node-server`, which hands the app the raw
 * Node request as `env.incoming`: that is where the GET body is read from.
 *
 * @example
 * ```ts
 * const { url, close } = await startEmulator({ port: 0, admin: true });
 * // … point a client at `${url}/api/user` …
 * await close();
 * ```
 */
export function startEmulator(options: StartEmulatorOptions = {}): Promise<RunningEmulator> {
  const { port = DEFAULT_PORT, host = DEFAULT_HOST, ...emulatorOptions } = options;
  return listen(
    port,
    host,
    () => createEmulator(emulatorOptions),
    (emulator) => emulator.close(),
  );
}

/**
 * Creates the mode (its `TypeError` rejects) and serves it on `host:port`. `close` stops
 * accepting, ends idle keep-alive connections, waits for in-flight requests, then runs `after`.
 */
function listen<T extends { app: { fetch: Parameters<typeof serve>[0]['fetch'] } }>(
  port: number,
  host: string,
  create: () => T,
  after: (emulator: T) => Promise<void> | void,
): Promise<{ url: string; port: number; emulator: T; close(): Promise<void> }> {
  if (!Number.isInteger(port) || port < 0 || port > 65_535) return Promise.reject(new TypeError('port must be an integer from 0 to 65535'));
  let emulator: T;
  try {
    emulator = create();
  } catch (error) {
    return Promise.reject(error);
  }
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: emulator.app.fetch, port, hostname: host }, (info: AddressInfo) => {
      server.off('error', reject);
      const close = async () => {
        await new Promise<void>((done) => {
          server.close(() => done());
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        });
        await after(emulator);
      };
      resolve({ url: formatUrl(host, info.port), port: info.port, emulator, close });
    });
    server.once('error', reject);
    server.on('clientError', answerClientError);
  });
}

export interface StartSupersetEmulatorOptions extends SupersetEmulatorOptions {
  /** Default `8790`; `0` picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface RunningSupersetEmulator {
  url: string;
  port: number;
  emulator: SupersetEmulator;
  close(): Promise<void>;
}

/** The Superset mode (`--vendor superset`) on a real socket, as {@link startEmulator} serves Explo's. */
export function startSupersetEmulator(options: StartSupersetEmulatorOptions = {}): Promise<RunningSupersetEmulator> {
  const { port = DEFAULT_PORT, host = DEFAULT_HOST, ...supersetOptions } = options;
  return listen(
    port,
    host,
    () => createSupersetEmulator(supersetOptions),
    () => undefined,
  );
}

export interface StartMetabaseEmulatorOptions extends MetabaseEmulatorOptions {
  /** Default `8790`; `0` picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface RunningMetabaseEmulator {
  url: string;
  port: number;
  emulator: MetabaseEmulator;
  close(): Promise<void>;
}

/** The Metabase mode (`--vendor metabase`) on a real socket, as {@link startEmulator} serves Explo's. */
export function startMetabaseEmulator(options: StartMetabaseEmulatorOptions = {}): Promise<RunningMetabaseEmulator> {
  const { port = DEFAULT_PORT, host = DEFAULT_HOST, ...metabaseOptions } = options;
  return listen(
    port,
    host,
    () => createMetabaseEmulator(metabaseOptions),
    () => undefined,
  );
}
