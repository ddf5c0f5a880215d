/** The BFF library snippet (text), kept beside the page so it is easy to keep true to the API. */
export const bffLibrarySnippet = `import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { UserGroupClient } from '@embedded-dashboard/client';
import { createEmbedRoutes } from '@embedded-dashboard/bff';

const apiToken = process.env.VENDOR_API_TOKEN!; // stays on the server

const app = new Hono();
// … your own routes, including the sign-in that sets the "session" cookie …
app.route('/embed', createEmbedRoutes({
  upstream: new UserGroupClient({ baseUrl: 'https://vendor.example.com', apiToken }),
  // Your session JWT: its org_id, org_name and embed_properties claims become the user group.
  session: { secret: process.env.SESSION_SECRET!, cookie: 'session', issuer: 'my-app', audience: 'my-app' },
  tokenTtlSeconds: 3600,
  secrets: [apiToken], // redacted from every log line
}));

serve({ fetch: app.fetch, port: 3000 });`;
