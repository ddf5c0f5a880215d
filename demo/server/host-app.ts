import { Hono, type Context } from 'hono';
import { authRoutes } from './auth-routes.js';
import { demoApi, type DemoApiOptions } from './demo-api.js';
import { pageRoutes } from './pages.js';
import { customerOf } from './current-customer.js';
import { securityHeaders } from './security-headers.js';
import type { SessionKeys } from './session.js';
import type { TokenLedger } from './token-ledger.js';

export interface HostAppOptions extends Omit<DemoApiOptions, 'sessionSecret'> {
  session: SessionKeys;
  /** The BFF's token routes, mounted at `basePath`. */
  embed: { basePath: string; routes: Hono };
  /** A second BFF's token routes answering embed tokens (`?protocol=explo-jwt`), mounted at `basePath`. */
  embedTokens?: { basePath: string; routes: Hono };
  /** A third BFF's token routes answering single-chart embed tokens minted by the vendor (`?protocol=explo-jwt&chart=…`). */
  chartTokens?: { basePath: string; routes: Hono };
  /** Learns each customer's current token from the BFF's answers (for the expire button). */
  ledger: TokenLedger;
  /** The built pages; without it (under `npm run dev`) Vite serves them. */
  publicDir?: string;
  /** Mark the session cookie `Secure` whatever the request URL says (served over HTTPS behind a proxy). */
  secureCookies?: boolean;
}

/**
 * The fictional integrator's app: sign-in, the demo API, the BFF's routes under `/embed`
 * (mounted as any integrator would), and the pages.
 */
export function createHostApp(options: HostAppOptions): Hono {
  const app = new Hono();
  app.use('*', securityHeaders());
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.route('/', authRoutes(options.session, options.secureCookies ?? false));
  app.route('/', demoApi({ ...options, sessionSecret: options.session.secret }));
  for (const { basePath, routes } of [options.embed, options.embedTokens, options.chartTokens].filter((bff) => bff !== undefined)) {
    app.use(`${basePath}/*`, async function learnTokens(c, next) {
      await next();
      const customer = await customerOf(c as Context, options.session.secret);
      await options.ledger.observe(customer?.id, c.res);
    });
    app.route(basePath, routes);
  }
  if (options.publicDir !== undefined) app.route('/', pageRoutes(options.publicDir, options.session.secret));
  app.notFound((c) => c.text('Not found', 404));
  return app;
}
