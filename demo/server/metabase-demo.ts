import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { createEmbedRoutes, createJsonLogger } from '@embedded-dashboard/bff';
import { metabaseVendor } from '@embedded-dashboard/bff/metabase';
import { customerOf } from './current-customer.js';
import { SESSION_AUDIENCE, SESSION_COOKIE, SESSION_ISSUER } from './session.js';

/**
 * The demo's third vendor: Metabase (`/metabase`, picked on the sign-in page), as an integrator
 * embeds it: `<embedded-dashboard protocol="metabase">` (the standalone file) and the BFF with
 * `metabaseVendor` at `/embed-metabase`, signing each guest token with the instance's embedding
 * secret (no request to Metabase), `customer_id` locked to the session's `org_id`. No Metabase
 * server is packaged anywhere these machines reach, so the Metabase is the emulator's Metabase
 * mode on a port of its own (`packages/emulator/src/metabase/`).
 */
export interface DemoMetabase {
  /** The Metabase site URL, e.g. `http://127.0.0.1:8791`. */
  url: string;
  /** Its embedding secret key (64 hex characters): the BFF's, never the page's. */
  secret: string;
  /** The published dashboard's id. */
  dashboard: number;
}

/** Where the demo's Metabase BFF is mounted. */
export const METABASE_TOKENS_BASE_PATH = '/embed-metabase';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const page = (metabase: DemoMetabase, customer: { name: string }) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Metabase · Northwind Analytics</title><link rel="icon" href="/favicon.svg" type="image/svg+xml">
<script type="module" src="/metabase/embedded-dashboard-metabase.js"></script>
<style>body{font:16px/1.5 system-ui,sans-serif;margin:0 auto;max-width:72rem;padding:1rem}embedded-dashboard{display:block;border:1px solid #ddd}</style>
</head><body>
<header><a href="/">Northwind Analytics</a> · <a href="/app">Explo (emulator)</a> · <a href="/superset">Apache Superset</a> · <strong>Metabase</strong> · <a href="/logout">Sign out</a></header>
<main>
<h1 data-testid="vendor">Metabase · ${escape(customer.name)}</h1>
<p data-testid="metabase-kind">The emulator’s Metabase mode at <code>${escape(metabase.url)}</code>: a guest token signed by <code>${METABASE_TOKENS_BASE_PATH}/token</code> with the embedding secret, <code>customer_id</code> locked to your session’s customer; <code>region</code> is editable in the frame.</p>
<embedded-dashboard protocol="metabase" dashboard="${metabase.dashboard}" src-template="${escape(metabase.url)}/embed/dashboard/{token}"
  token-url="${METABASE_TOKENS_BASE_PATH}/token" titled="true" bordered="false" label="Sales (Metabase)"
  sandbox="allow-same-origin allow-scripts allow-forms allow-popups allow-downloads"></embedded-dashboard>
</main></body></html>`;

/** `/metabase` (the page), its BFF at `/embed-metabase` and the element's standalone file. */
export function metabaseRoutes(options: { metabase: DemoMetabase; sessionSecret: string; origins: () => string[]; log?: (line: string) => void }): Hono {
  const app = new Hono();
  const { metabase } = options;
  app.get('/metabase', async (c) => {
    const customer = await customerOf(c, options.sessionSecret);
    if (!customer) return c.redirect('/', 302);
    // The one page on this host that may be framed by nothing and frame Metabase.
    const csp = `frame-ancestors 'none'; frame-src ${new URL(metabase.url).origin}`;
    return c.html(page(metabase, customer), 200, { 'Cache-Control': 'no-store', 'Content-Security-Policy': csp });
  });
  const script = readFileSync(createRequire(import.meta.url).resolve('@embedded-dashboard/element/standalone/metabase'), 'utf8');
  app.get('/metabase/embedded-dashboard-metabase.js', (c) =>
    c.body(script, 200, { 'content-type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }),
  );
  const routes = createEmbedRoutes({
    vendor: metabaseVendor({ secret: metabase.secret, params: { customer_id: '{org_id}' }, dashboards: [metabase.dashboard] }),
    session: { secret: options.sessionSecret, cookie: SESSION_COOKIE, issuer: SESSION_ISSUER, audience: SESSION_AUDIENCE },
    allowedOrigins: options.origins(),
    secrets: [metabase.secret],
    logger: createJsonLogger({ write: options.log ?? (() => undefined), level: options.log ? 'info' : 'silent', secrets: [metabase.secret] }),
  });
  app.route(METABASE_TOKENS_BASE_PATH, routes);
  return app;
}
