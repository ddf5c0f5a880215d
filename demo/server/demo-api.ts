import { Hono } from 'hono';
import { DEMO_API, type DemoExpireResult, type DemoSessionInfo, type DemoTimings, type DemoVendorStatus } from '../shared/api.js';
import type { DemoControls } from './controls.js';
import { requireCustomer } from './current-customer.js';
import { requireJsonFromAllowedOrigin } from './json-guard.js';

export interface DemoApiOptions {
  sessionSecret: string;
  controls: DemoControls;
  /** Origins allowed to call the state-changing routes (the host app's own). */
  allowedOrigins: () => readonly string[];
  /** The dashboard URL template for a page served at `pageUrl`. */
  srcTemplateFor(pageUrl: URL): string;
  tokenUrl: string;
  /** The embed-token BFF's token route, when the demo has one (`?protocol=explo-jwt`). */
  embedTokenUrl?: string;
  /** The token route of the BFF that has the vendor mint single-chart embed tokens (`?protocol=explo-jwt&chart=…`), when the demo has one. */
  chartTokenUrl?: string;
  tokenTtlSeconds: number;
  refreshMarginSeconds: number | null;
}

const readOutageRequest = async (request: Request): Promise<boolean | undefined> => {
  const text = await request.text();
  if (text.length > 1024) return undefined;
  try {
    const body: unknown = JSON.parse(text);
    const on = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).on : undefined;
    return typeof on === 'boolean' ? on : undefined;
  } catch {
    return undefined;
  }
};

const NO_TIMINGS: DemoTimings = { loads: 0, loadSeconds: null, loadTokenSeconds: null, renewals: 0, renewalTokenSeconds: null };

/** The `/app` page's API: session info, and the buttons that break things on purpose. */
export function demoApi(options: DemoApiOptions): Hono {
  const app = new Hono();
  app.use('/api/*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  app.use('/api/*', requireCustomer(options.sessionSecret));
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '/api/*', requireJsonFromAllowedOrigin(options.allowedOrigins));

  const status = async (): Promise<DemoVendorStatus> => ({
    outage: options.controls.outage(),
    stats: await options.controls.vendorStats(),
    timings: (await options.controls.timings?.()) ?? NO_TIMINGS,
  });

  app.get(DEMO_API.session, (c) => {
    const info: DemoSessionInfo = {
      customer: c.var.customer,
      srcTemplate: options.srcTemplateFor(new URL(c.req.url)),
      tokenUrl: options.tokenUrl,
      embedTokenUrl: options.embedTokenUrl ?? null,
      chartTokenUrl: options.chartTokenUrl ?? null,
      tokenTtlSeconds: options.tokenTtlSeconds,
      refreshMarginSeconds: options.refreshMarginSeconds,
    };
    return c.json(info);
  });

  app.post(DEMO_API.expireToken, async (c) => {
    const result: DemoExpireResult = { outcome: await options.controls.expireCurrentToken(c.var.customer) };
    return c.json(result);
  });

  app.get(DEMO_API.vendorStatus, async (c) => c.json(await status()));

  app.post(DEMO_API.outage, async (c) => {
    const on = await readOutageRequest(c.req.raw);
    if (on === undefined) return c.json({ error: { code: 'bad_request', message: 'Send {"on": true} or {"on": false}.' } }, 400);
    options.controls.setOutage(on);
    return c.json(await status());
  });

  return app;
}
