// What your web server does for this page, in a few lines of node:http: serves the HTML pages of
// this folder and the element's standalone scripts at /assets/, forwards /embed/ to the BFF (so
// the page asks for tokens on its own origin, no CORS), and stands in for your app's login.
import { readFile } from 'node:fs/promises';
import { createServer, request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT } from 'jose';

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
};
const bff = new URL(env('BFF_URL', 'http://127.0.0.1:8787'));
const key = new TextEncoder().encode(env('SESSION_SECRET'));
const here = dirname(fileURLToPath(import.meta.url));
const standalone = dirname(createRequire(import.meta.url).resolve('@embedded-dashboard/element/standalone'));

// Your app's customers; the session carries the claims the BFF reads (org_id, for the RLS template).
const CUSTOMERS = { acme: 'Acme Corp', globex: 'Globex' };
const PAGES = new Set(['superset.html', 'metabase.html']);

const server = createServer(async (req, res) => {
  const url = new URL(req.url ?? '/', 'http://page');
  if (url.pathname.startsWith('/embed/')) {
    // The browser's own headers (cookie, origin, sec-fetch-site) go to the BFF as they came.
    const upstream = request({ host: bff.hostname, port: bff.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    return void req.pipe(upstream);
  }
  if (url.pathname === '/login' && Object.hasOwn(CUSTOMERS, url.searchParams.get('customer') ?? '')) {
    const id = url.searchParams.get('customer');
    const session = await new SignJWT({ org_id: id, org_name: CUSTOMERS[id] }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(key);
    const next = PAGES.has(url.searchParams.get('next')) ? url.searchParams.get('next') : 'superset.html';
    res.writeHead(303, { location: `/${next}`, 'set-cookie': `session=${session}; Path=/; HttpOnly; SameSite=Lax` });
    return void res.end();
  }
  const asset = /^\/assets\/(embedded-dashboard(?:-[a-z]+)?\.js)$/.exec(url.pathname)?.[1];
  const page = url.pathname.slice(1);
  const file = asset ? join(standalone, asset) : PAGES.has(page) ? join(here, page) : undefined;
  const body = file && (await readFile(file).catch(() => undefined));
  if (!body) return void res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  res.writeHead(200, { 'content-type': asset ? 'text/javascript' : 'text/html' }).end(body);
});
server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`example listening on http://${address}:${port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
