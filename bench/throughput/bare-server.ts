import { serve } from '@hono/node-server';
import { Hono } from 'hono';

/*
 * The throughput baseline: Hono on @hono/node-server answering the token route with a constant
 * JSON body. What the BFF adds on top of this (session verification, origin and content-type
 * checks, the store, logging) is what the ratio measures.
 */
const body = { token: 'x'.repeat(43), expiresAt: null, serverTime: 0 };
const app = new Hono();
app.post('/embed/token', (c) => c.json(body));

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(`bare listening on http://127.0.0.1:${info.port}`);
});
process.once('SIGTERM', () => server.close(() => process.exit(0)));
