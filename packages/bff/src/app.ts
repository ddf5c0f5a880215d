import { Hono } from 'hono';
import { DEFAULT_BFF_BASE_PATH } from '@embedded-dashboard/protocol';
import { BffError } from './errors/bff-error.js';
import { keepsNoMetrics } from './observability/no-metrics.js';
import type { BffAppOptions } from './options.js';
import { buildEmbedRoutes } from './routes/embed-routes.js';
import { bffErrorHandler } from './routes/error-handler.js';
import { buildHealthRoutes } from './routes/health-routes.js';
import { requestContext } from './routes/request-context.js';
import { respondError } from './routes/respond.js';
import { createBffRuntime } from './runtime.js';

/*
 * Configuration step 5 of 5 (the app; ARCHITECTURE §2.1): the routes over the wired runtime, as one
 * Hono app.
 */

/**
 * The whole BFF as one Hono app: `POST {basePath}/token`, `POST {basePath}/token/rotate`,
 * `GET /healthz`, `GET /readyz`, and with `exposeMetrics` `GET /metrics`. Serve it with `@hono/node-server`, mount it in
 * another Hono app, or hand `app.fetch` to any fetch-style server.
 *
 * @example
 * ```ts
 * import { serve } from '@hono/node-server';
 * import { UserGroupClient } from '@embedded-dashboard/client';
 * import { createBffApp } from '@embedded-dashboard/bff';
 *
 * const apiToken = process.env.EMBED_API_TOKEN!;
 * const app = createBffApp({
 *   upstream: new UserGroupClient({ baseUrl: 'http://127.0.0.1:8790', apiToken }),
 *   session: { secret: process.env.EMBED_SESSION_SECRET!, cookie: 'session' },
 *   secrets: [apiToken],
 * });
 * serve({ fetch: app.fetch, port: 8787 });
 * ```
 */
export function createBffApp(options: BffAppOptions): Hono {
  const runtime = createBffRuntime(options);
  if (options.exposeMetrics === true && keepsNoMetrics(runtime.metrics)) {
    throw new TypeError('exposeMetrics: this runtime keeps no metrics by default (prom-client needs Node.js); pass `metrics` of your own');
  }
  const basePath = options.basePath ?? DEFAULT_BFF_BASE_PATH;
  if (!basePath.startsWith('/') || basePath.endsWith('/')) throw new TypeError('basePath must start with "/" and not end with "/"');
  const app = new Hono();
  app.use('*', requestContext(runtime.logger));
  app.onError(bffErrorHandler(runtime.logger, runtime.refusals));
  app.notFound((c) => respondError(c, new BffError('bad_request', 'no such route', { status: 404 })));
  app.route(basePath, buildEmbedRoutes(runtime, false));
  app.route('/', buildHealthRoutes(runtime, options.exposeMetrics ?? false));
  return app;
}
