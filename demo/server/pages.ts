import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { customerOf } from './current-customer.js';

/** The pages Vite builds (`vite.config.ts` `build` section), by route. */
export const DEMO_PAGES = { '/': 'index.html', '/app': 'app.html', '/integrate': 'integrate.html' } as const;

/**
 * Serves the built pages and their hashed assets from `publicDir`. `/app` sends visitors
 * without a valid session to the sign-in page.
 */
export function pageRoutes(publicDir: string, sessionSecret: string): Hono {
  const html = Object.fromEntries(
    Object.entries(DEMO_PAGES).map(([route, file]) => {
      const path = join(publicDir, file);
      if (!existsSync(path)) throw new Error(`The demo pages are not built (${path} is missing): run "npm run build" first.`);
      return [route, readFileSync(path, 'utf8')];
    }),
  );
  const page = (route: keyof typeof DEMO_PAGES) => html[route] ?? '';

  const app = new Hono();
  app.get('/', (c) => c.html(page('/'), 200, { 'Cache-Control': 'no-cache' }));
  app.get('/integrate', (c) => c.html(page('/integrate'), 200, { 'Cache-Control': 'no-cache' }));
  app.get('/app', async (c) => {
    if (!(await customerOf(c, sessionSecret))) return c.redirect('/', 302);
    return c.html(page('/app'), 200, { 'Cache-Control': 'no-store' });
  });
  app.use(
    '/assets/*',
    serveStatic({
      root: publicDir,
      onFound: (_path, c) => {
        c.header('Cache-Control', 'public, max-age=31536000, immutable');
      },
    }),
  );
  app.get('/favicon.svg', serveStatic({ root: publicDir }));
  return app;
}
