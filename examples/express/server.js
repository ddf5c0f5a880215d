// An existing Express app (its own users, login and session cookie) that embeds the vendor's
// dashboards: the BFF is mounted at /embed, the element is on /dashboard.
import { createRequire } from 'node:module';
import express from 'express';
import { SignJWT, jwtVerify } from 'jose';
import { createBffApp, createBffNodeListener } from '@embedded-dashboard/bff';
import { UserGroupClient } from '@embedded-dashboard/client';

const env = (name, fallback) => {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`set ${name} (see README.md)`);
  return value;
};
const upstreamUrl = env('EMBED_UPSTREAM_URL');
const apiToken = env('EMBED_API_TOKEN');
const sessionSecret = env('SESSION_SECRET');
const srcTemplate = env('DASHBOARD_SRC_TEMPLATE', `${upstreamUrl}/iframe/{dashboard}`);

// The app's own users; each belongs to a customer organisation (a user group at the vendor).
const USERS = {
  'wile@acme.example': { password: 'acme-demo', org: { id: 'acme', name: 'Acme Corp', properties: { region: 'EMEA', plan: 'Enterprise' } } },
  'hank@globex.example': { password: 'globex-demo', org: { id: 'globex', name: 'Globex', properties: { region: 'Americas', plan: 'Growth' } } },
};
const key = new TextEncoder().encode(sessionSecret);
const signSession = (email, org) =>
  new SignJWT({ org_id: org.id, org_name: org.name, embed_properties: org.properties })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(email)
    .setExpirationTime('1h')
    .sign(key);
const sessionOf = async (req) => {
  const cookie = /(?:^|;\s*)session=([^;]+)/.exec(req.headers.cookie ?? '')?.[1];
  if (!cookie) return undefined;
  try {
    return (await jwtVerify(cookie, key, { algorithms: ['HS256'] })).payload;
  } catch {
    return undefined;
  }
};

const app = express();
// Behind a TLS-terminating proxy on this machine (nginx, say): req.secure follows its X-Forwarded-Proto.
app.set('trust proxy', 'loopback');

// #region mount-bff
const bff = createBffApp({
  upstream: new UserGroupClient({ baseUrl: upstreamUrl, apiToken }),
  session: { secret: sessionSecret, cookie: 'session' }, // the cookie your login sets
  secrets: [apiToken], // redacted from every log line
});
const listener = createBffNodeListener(bff);
// Before any body parser: the BFF reads and limits the body itself.
app.use(['/embed', '/healthz', '/readyz'], (req, res) => listener(Object.assign(req, { url: req.originalUrl }), res));
// #endregion mount-bff

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">
<script type="module" src="/assets/embedded-dashboard.js"></script></head><body>${body}</body></html>`;
const standalone = createRequire(import.meta.url).resolve('@embedded-dashboard/element/standalone');
app.get('/assets/embedded-dashboard.js', (req, res) => res.sendFile(standalone));

app.get('/', (req, res) => res.redirect('/dashboard'));
app.get('/login', (req, res) =>
  res.send(
    page(
      'Sign in',
      `<form method="post" action="/login"><label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password"></label><button>Sign in</button></form>`,
    ),
  ),
);
app.post('/login', express.urlencoded({ extended: false }), async (req, res) => {
  const user = USERS[req.body.email];
  if (!user || user.password !== req.body.password)
    return res.status(401).send(page('Sign in', '<p>Wrong email or password. <a href="/login">Try again</a></p>'));
  res.cookie('session', await signSession(req.body.email, user.org), { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure });
  res.redirect(303, '/dashboard');
});
app.post('/logout', (req, res) => res.clearCookie('session', { path: '/', secure: req.secure }).redirect(303, '/login'));

app.get('/dashboard', async (req, res) => {
  const session = await sessionOf(req);
  if (!session) return res.redirect('/login');
  res.send(
    page(
      `${escapeHtml(session.org_name)} dashboard`,
      `<h1>${escapeHtml(session.org_name)}</h1>
<embedded-dashboard dashboard="sales-overview" src-template="${escapeHtml(srcTemplate)}" label="Sales overview"></embedded-dashboard>`,
    ),
  );
});

const server = app.listen(Number(process.env.PORT ?? 3000), process.env.HOST ?? '127.0.0.1', () => {
  const { address, port } = server.address();
  console.log(`example listening on http://${address}:${port}`);
});
const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
