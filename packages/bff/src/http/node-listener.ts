import { getRequestListener, RequestError } from '@hono/node-server';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';

type FetchCallback = Parameters<typeof getRequestListener>[0];
export type NodeRequestListener = ReturnType<typeof getRequestListener>;

export interface BffNodeListenerOptions {
  /** Host for requests without a `Host` header (HTTP/1.0), as `serve({ hostname })` does. */
  hostname?: string;
  /** Gets a line for each request refused before the app runs. Default: none. */
  logger?: BffLogger;
}

/**
 * A Node `(req, res)` listener for the BFF app (`@hono/node-server`'s `getRequestListener`)
 * whose own refusals, made before the app runs (a malformed `Host` or request target), are
 * answered like the BFF's: `Cache-Control: no-store` and the error body, 400 `bad_request`.
 * The adapter's default is a bare 400 without `no-store`.
 *
 * @example
 * ```ts
 * import { createServer } from 'node:http';
 * createServer(createBffNodeListener(createBffApp(options))).listen(8787, '127.0.0.1');
 * ```
 */
export function createBffNodeListener(app: { fetch: FetchCallback }, options: BffNodeListenerOptions = {}): NodeRequestListener {
  const { logger } = options;
  return getRequestListener(app.fetch, {
    hostname: options.hostname,
    errorHandler: (error) => {
      if (error instanceof RequestError) {
        logger?.info('request refused by the HTTP adapter', { status: 400, reason: error.message.slice(0, 100) });
        return new BffError('bad_request', 'malformed request').getResponse();
      }
      // The app answers its own errors; reaching here is a bug in the app or the adapter.
      logger?.error('request failed outside the app', { error: error instanceof Error ? error.name : typeof error });
      return new BffError('internal', 'internal error', { retryable: false }).getResponse();
    },
  });
}
