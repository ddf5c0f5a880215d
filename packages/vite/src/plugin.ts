import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono } from 'hono';
import type { Plugin } from 'vite';
import { createBffNodeListener, createEmbedRoutes, createJsonLogger, type SessionOptions } from '@embedded-dashboard/bff';
import { UserGroupClient } from '@embedded-dashboard/client';
import { startEmulator, type RunningEmulator } from '@embedded-dashboard/emulator';
import { createDevSignIn, DEV_SIGN_IN_PATH } from './dev-sign-in.js';
import { resolvePluginOptions, type EmbeddedDashboardPluginOptions } from './options.js';

/** The `import.meta.env` key that carries the emulator's dashboard URL template in `vite dev`. */
export const SRC_TEMPLATE_ENV = 'VITE_EMBEDDED_DASHBOARD_SRC_TEMPLATE';
/** The cookie of the dev sign-in's sessions, when `session` is not given. */
export const DEV_SESSION_COOKIE = 'embedded_dashboard_dev_session';

/**
 * The embedded-dashboard BFF inside `vite dev`: `POST /embed/token` and `/embed/token/rotate` on
 * the dev server itself (no second process; HMR untouched), the emulator started in the same
 * process as the vendor unless `upstream` is given, and a dev-only sign-in
 * (`/__embedded-dashboard/login?customer=acme`) so a dashboard shows before your own auth is
 * wired. Applies to `vite dev` only: `vite build` output contains none of it.
 *
 * With the emulator, `import.meta.env.VITE_EMBEDDED_DASHBOARD_SRC_TEMPLATE` is its dashboard URL
 * template (set your vendor's in `.env.production`).
 *
 * @example
 * ```ts
 * // vite.config.ts
 * import { defineConfig } from 'vite';
 * import { embeddedDashboard } from '@embedded-dashboard/vite';
 * export default defineConfig({ plugins: [embeddedDashboard()] });
 * ```
 */
export function embeddedDashboard(options: EmbeddedDashboardPluginOptions = {}): Plugin {
  const resolved = resolvePluginOptions(options);
  let emulator: RunningEmulator | undefined;
  let upstream: UserGroupClient | undefined;
  return {
    name: 'embedded-dashboard',
    apply: 'serve',
    async config(config) {
      if (resolved.upstream !== undefined) return undefined;
      emulator = await startEmulator({ port: 0, host: '127.0.0.1' });
      if (config.define?.[`import.meta.env.${SRC_TEMPLATE_ENV}`] !== undefined || process.env[SRC_TEMPLATE_ENV] !== undefined) return undefined;
      return { define: { [`import.meta.env.${SRC_TEMPLATE_ENV}`]: JSON.stringify(`${emulator.url}/iframe/{dashboard}`) } };
    },
    configureServer(server) {
      const logger = server.config.logger;
      const devSecret = randomBytes(32).toString('base64url');
      const session: SessionOptions = resolved.session ?? { secret: devSecret, cookie: DEV_SESSION_COOKIE };
      upstream = new UserGroupClient({ baseUrl: resolved.upstream ?? emulator!.url, apiToken: resolved.apiToken });
      const secrets = [resolved.apiToken, ...(typeof session.secret === 'string' ? [session.secret] : [])];
      const routes = createEmbedRoutes({
        upstream,
        session,
        secrets,
        logger: createJsonLogger({ write: (line) => logger.warn(`embedded-dashboard bff: ${line}`), level: 'warn', secrets }),
      });
      const bff = createBffNodeListener(new Hono().route(resolved.basePath, routes));
      const devSignIn = resolved.devCustomers
        ? createDevSignIn({ customers: resolved.devCustomers, secret: session.secret as string, cookie: session.cookie! })
        : undefined;
      const prefix = `${resolved.basePath}/`;

      server.middlewares.use(function embeddedDashboardMiddleware(req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) {
        const url = req.url ?? '/';
        if (url.startsWith(prefix)) {
          void Promise.resolve(bff(req, res)).catch(next);
          return;
        }
        if (devSignIn && url.startsWith(`${DEV_SIGN_IN_PATH}/`)) {
          devSignIn(req, res).then((handled) => handled || next(), next);
          return;
        }
        next();
      });

      server.httpServer?.once('listening', () => {
        const base = server.resolvedUrls?.local[0]?.replace(/\/$/, '') ?? '';
        logger.info(`  embedded-dashboard: BFF at ${base}${resolved.basePath}, vendor ${resolved.upstream ?? `emulator at ${emulator!.url}`}`);
        if (resolved.devCustomers) {
          logger.info(
            `  embedded-dashboard: dev sign-in ${base}${DEV_SIGN_IN_PATH}/login?customer=${resolved.devCustomers[0]!.id} (${resolved.devCustomers.map((c) => c.id).join(', ')})`,
          );
        }
      });
    },
    async closeBundle() {
      upstream?.close();
      upstream = undefined;
      await emulator?.close();
      emulator = undefined;
    },
  };
}
