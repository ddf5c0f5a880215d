import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { createEmbedRoutes, createJsonLogger } from '@embedded-dashboard/bff';
import { supersetVendor } from '@embedded-dashboard/bff/superset';
import { customerOf } from './current-customer.js';
import { SESSION_AUDIENCE, SESSION_COOKIE, SESSION_ISSUER } from './session.js';

/**
 * The demo's second vendor: Apache Superset (`/superset`, picked on the sign-in page). A real
 * Superset (`npm run superset`, whose manifest `EMBED_SUPERSET_MANIFEST` names) is embedded as
 * an integrator would: `<embedded-dashboard protocol="superset">` (the standalone file) and the
 * BFF with `supersetVendor` at `/embed-superset`, signing guest tokens with the server's
 * `GUEST_TOKEN_JWT_SECRET` (no request to Superset), row-level security `customer_id = {org_id}`
 * from the demo's session.
 */
export interface DemoSuperset {
  /** Superset's base URL, e.g. `http://127.0.0.1:8088`. */
  url: string;
  /** The embedded dashboard's UUID. */
  dashboard: string;
  guestToken: { secret: string; audience: string };
  /** The emulator's Superset mode rather than a real Superset (the page says so). */
  emulated?: boolean;
}

/** Where the demo's Superset BFF is mounted. */
export const SUPERSET_TOKENS_BASE_PATH = '/embed-superset';

/** The Superset of a manifest written by test/support/superset/run.py (`npm run superset`). */
export function supersetFromManifest(path: string): DemoSuperset {
  let manifest: { url?: unknown; dashboards?: { sales?: { uuid?: unknown } }; guestToken?: { secret?: unknown; audience?: unknown } };
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as typeof manifest;
  } catch (error) {
    throw new TypeError(`EMBED_SUPERSET_MANIFEST (${path}) is not a readable manifest: ${(error as Error).message}`, { cause: error });
  }
  const { url, dashboards, guestToken } = manifest;
  const dashboard = dashboards?.sales?.uuid;
  if (typeof url !== 'string' || typeof dashboard !== 'string' || typeof guestToken?.secret !== 'string' || typeof guestToken.audience !== 'string') {
    throw new TypeError(`EMBED_SUPERSET_MANIFEST (${path}) lacks url, dashboards.sales.uuid or guestToken: is it npm run superset's manifest.json?`);
  }
  return { url, dashboard, guestToken: { secret: guestToken.secret, audience: guestToken.audience } };
}

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (superset: DemoSuperset | undefined, customer: { name: string } | undefined) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Apache Superset · Northwind Analytics</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
${superset ? '<script type="module" src="/superset/embedded-dashboard-superset.js"></script>' : ''}
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem}embedded-dashboard{display:block;border:1px solid #ddd}</style>
</head><body>
<header><a href="/">Northwind Analytics</a> · <a href="/app">Explo (emulator)</a> · <strong>Apache Superset</strong> · <a href="/logout">Sign out</a></header>
<main>
<h1 data-testid="vendor">Apache Superset${customer ? ` · ${escape(customer.name)}` : ''}</h1>
${
  superset
    ? `<p data-testid="superset-kind">${superset.emulated ? 'The emulator’s Superset mode (start a real Superset with <code>npm run superset</code>: demo/README.md)' : 'The real Superset'} at <code>${escape(superset.url)}</code>: a guest token from <code>${SUPERSET_TOKENS_BASE_PATH}/token</code>, row-level security <code>customer_id = {org_id}</code> from your session.</p>
<embedded-dashboard protocol="superset" dashboard="${escape(superset.dashboard)}" src-template="${escape(superset.url)}/embedded/{dashboard}"
  token-url="${SUPERSET_TOKENS_BASE_PATH}/token" hide-title label="Sales (Apache Superset)"
  sandbox="allow-same-origin allow-scripts allow-presentation allow-downloads allow-forms allow-popups" allow="fullscreen; clipboard-write"></embedded-dashboard>`
    : `<p data-testid="superset-missing">No Superset is configured. Start one with <code>npm run superset</code> and start the demo with the <code>EMBED_SUPERSET_MANIFEST</code> it prints (demo/README.md, "Apache Superset").</p>`
}
</main></body></html>`;

/** `/superset` (the page) and, with a Superset, its BFF at `/embed-superset` and the element's standalone file. */
export function supersetRoutes(options: {
  superset: DemoSuperset | undefined;
  sessionSecret: string;
  origins: () => string[];
  log?: (line: string) => void;
}): Hono {
  const app = new Hono();
  const { superset } = options;
  app.get('/superset', async (c) => {
    const customer = await customerOf(c, options.sessionSecret);
    if (!customer) return c.redirect('/', 302);
    // The frame's origin is the one page on this host that may be framed by nothing and frame Superset.
    const csp = superset ? `frame-ancestors 'none'; frame-src ${new URL(superset.url).origin}` : "frame-ancestors 'none'";
    return c.html(page(superset, customer), 200, { 'Cache-Control': 'no-store', 'Content-Security-Policy': csp });
  });
  if (!superset) return app;
  const script = readFileSync(createRequire(import.meta.url).resolve('@embedded-dashboard/element/standalone/superset'), 'utf8');
  app.get('/superset/embedded-dashboard-superset.js', (c) =>
    c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  const routes = createEmbedRoutes({
    vendor: supersetVendor({
      dashboards: [superset.dashboard],
      rls: 'customer_id = {org_id}',
      guestTokenSecret: superset.guestToken.secret,
      audience: superset.guestToken.audience,
    }),
    session: { secret: options.sessionSecret, cookie: SESSION_COOKIE, issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE },
    allowedOrigins: options.origins(),
    secrets: [superset.guestToken.secret],
    logger: createJsonLogger({ write: options.log ?? (() => undefined), level: options.log ? 'info' : 'silent', secrets: [superset.guestToken.secret] }),
  });
  app.route(SUPERSET_TOKENS_BASE_PATH, routes);
  return app;
}
