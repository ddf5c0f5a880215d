import type { MiddlewareHandler } from 'hono';

/**
 * Headers every page of the host app carries. Nobody may frame the host app itself
 * (`frame-ancestors 'none'`); the dashboard iframe it embeds is governed by the vendor's own
 * `frame-ancestors`.
 */
export const securityHeaders = (): MiddlewareHandler =>
  async function securityHeaders(c, next) {
    await next();
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Referrer-Policy', 'same-origin');
    if (!c.res.headers.has('Content-Security-Policy')) c.header('Content-Security-Policy', "frame-ancestors 'none'");
  };
