// An existing Fastify app (its own users, login and session cookie) that embeds the vendor's
// dashboards: the BFF is mounted at /embed, the element is on /dashboard.
import { createReadStream } from 'node:fs';
import { createRequire } from 'node:module';
import Fastify from 'fastify';
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
const sessionOf = async (request) => {
  const cookie = /(?:^|;\s*)session=([^;]+)/.exec(request.headers.cookie ?? '')?.[1];
  if (!cookie) return undefined;
  try {
    return (await jwtVerify(cookie, key, { algorithms: ['HS256'] })).payload;
  } catch {
    return undefined;
  }
};

// Behind a TLS-terminating proxy on this machine (nginx, say): request.protocol follows its X-Forwarded-Proto.
const fastify = Fastify({ trustProxy: 'loopback' });

// #region mount-bff
const bff = createBffApp({
  upstream: new UserGroupClient({ baseUrl: upstreamUrl, apiToken }),
  session: { secret: sessionSecret, cookie: 'session' }, // the cookie your login sets
  secrets: [apiToken], // redacted from every log line
});
const listener = createBffNodeListener(bff);
await fastify.register(async (embed) => {
  // Leave the body unread for these routes: the BFF reads and limits it itself.
  embed.removeAllContentTypeParsers();
  embed.addContentTypeParser('*', (request, payload, done) => done(null));
  embed.all('/embed/*', (request, reply) => {
    reply.hijack();
    listener(request.raw, reply.raw);
  });
});
// #endregion mount-bff

const escapeHtml = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const page = (title, body) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><link rel="icon" href="data:,">
<script type="module" src="/assets/embedded-dashboard.js"></script></head><body>${body}</body></html>`;
const standalone = createRequire(import.meta.url).resolve('@embedded-dashboard/element/standalone');
fastify.get('/assets/embedded-dashboard.js', (request, reply) => reply.type('text/javascript').send(createReadStream(standalone)));

// The app's own form login (urlencoded bodies, parsed here only).
fastify.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) =>
  done(null, Object.fromEntries(new URLSearchParams(body))),
);
fastify.get('/', (request, reply) => reply.redirect('/dashboard'));
fastify.get('/login', (request, reply) =>
  reply.type('text/html').send(
    page(
      'Sign in',
      `<form method="post" action="/login"><label>Email <input name="email" type="email"></label>
<label>Password <input name="password" type="password"></label><button>Sign in</button></form>`,
    ),
  ),
);
fastify.post('/login', async (request, reply) => {
  const { email, password } = request.body ?? {};
  const user = USERS[email];
  if (!user || user.password !== password)
    return reply.code(401).type('text/html').send(page('Sign in', '<p>Wrong email or password. <a href="/login">Try again</a></p>'));
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `session=${await signSession(email, user.org)}; Path=/; HttpOnly; SameSite=Lax${secure}`);
  return reply.redirect('/dashboard', 303);
});
fastify.post('/logout', (request, reply) =>
  reply.header('set-cookie', `session=; Path=/; Max-Age=0${request.protocol === 'https' ? '; Secure' : ''}`).redirect('/login', 303),
);

fastify.get('/dashboard', async (request, reply) => {
  const session = await sessionOf(request);
  if (!session) return reply.redirect('/login');
  return reply.type('text/html').send(
    page(
      `${escapeHtml(session.org_name)} dashboard`,
      `<h1>${escapeHtml(session.org_name)}</h1>
<embedded-dashboard dashboard="sales-overview" src-template="${escapeHtml(srcTemplate)}" label="Sales overview"></embedded-dashboard>`,
    ),
  );
});

const address = await fastify.listen({ port: Number(process.env.PORT ?? 3000), host: process.env.HOST ?? '127.0.0.1' });
console.log(`example listening on ${address}`);
const stop = () => fastify.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
