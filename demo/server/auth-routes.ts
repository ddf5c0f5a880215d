import { Hono, type Context } from 'hono';
import { deleteCookie, setCookie } from 'hono/cookie';
import { isChartId } from '@embedded-dashboard/protocol';
import { findCustomer } from '../shared/customers.js';
import { SESSION_COOKIE, signSession, type SessionKeys } from './session.js';

/** The answer to a sign-in as nobody the demo knows: a page of its own, with the way back. */
const UNKNOWN_CUSTOMER_PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Unknown customer · Northwind Analytics</title></head>
<body><main><h1>Unknown customer</h1><p>Pick one on the <a href="/">sign-in page</a>.</p></main></body>
</html>
`;

/** The frame protocols `/app?protocol=` shows besides the default; `/login` passes one on. */
const APP_PROTOCOLS = new Set(['explo', 'explo-jwt']);

/**
 * `GET /login?customer=acme` signs in as a sample customer (an HttpOnly, SameSite=Lax cookie
 * holding a short-lived JWT) and redirects to `/app` (`/app?protocol=explo-jwt` with
 * `&protocol=explo-jwt`, or `explo`; `&chart=<id>` too with `explo-jwt`: one chart); `/logout`
 * clears the cookie.
 */
export function authRoutes(keys: SessionKeys, secureCookies = false): Hono {
  const app = new Hono();

  app.get('/login', async (c) => {
    const customer = findCustomer(c.req.query('customer'));
    if (!customer) return c.html(UNKNOWN_CUSTOMER_PAGE, 400, { 'Cache-Control': 'no-store' });
    const jwt = await signSession(customer, keys);
    setCookie(c, SESSION_COOKIE, jwt, {
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      maxAge: keys.ttlSeconds,
      // Behind a TLS-terminating proxy the request URL says http: the demo is told instead.
      secure: secureCookies || new URL(c.req.url).protocol === 'https:',
    });
    c.header('Cache-Control', 'no-store');
    if (c.req.query('vendor') === 'superset') return c.redirect('/superset', 302);
    if (c.req.query('vendor') === 'metabase') return c.redirect('/metabase', 302);
    const protocol = c.req.query('protocol');
    if (protocol === undefined || !APP_PROTOCOLS.has(protocol)) return c.redirect('/app', 302);
    const chart = c.req.query('chart');
    return c.redirect(`/app?protocol=${protocol}${protocol === 'explo-jwt' && isChartId(chart) ? `&chart=${chart}` : ''}`, 302);
  });

  const logout = (c: Context) => {
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: secureCookies || new URL(c.req.url).protocol === 'https:' });
    c.header('Cache-Control', 'no-store');
    return c.redirect('/', 302);
  };
  app.get('/logout', logout);
  app.post('/logout', logout);

  return app;
}
