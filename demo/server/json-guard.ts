import type { MiddlewareHandler } from 'hono';

/**
 * CSRF guard for the demo's state-changing API: a cross-site form cannot send
 * `application/json`, and a browser always names its `Origin` on a cross-origin `fetch`.
 */
export const requireJsonFromAllowedOrigin = (allowedOrigins: () => readonly string[]): MiddlewareHandler =>
  async function requireJsonFromAllowedOrigin(c, next) {
    const origin = c.req.header('Origin');
    if (origin !== undefined && !allowedOrigins().includes(origin)) {
      return c.json({ error: { code: 'forbidden', message: 'This origin may not call the demo API.' } }, 403);
    }
    const type = c.req.header('Content-Type') ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return c.json({ error: { code: 'bad_request', message: 'Send Content-Type: application/json.' } }, 415);
    }
    await next();
  };
