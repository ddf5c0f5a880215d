import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import { findCustomer, type DemoCustomer } from '../shared/customers.js';
import { SESSION_COOKIE, verifySession } from './session.js';

declare module 'hono' {
  interface ContextVariableMap {
    customer: DemoCustomer;
  }
}

/** The customer of the verified session cookie, or `undefined`. */
export async function customerOf(c: Context, secret: string): Promise<DemoCustomer | undefined> {
  return findCustomer(await verifySession(getCookie(c, SESSION_COOKIE), secret));
}

/** Answers 401 unless the request carries a valid session; sets `c.var.customer`. */
export const requireCustomer = (secret: string): MiddlewareHandler =>
  async function requireCustomer(c, next) {
    const customer = await customerOf(c, secret);
    if (!customer) return c.json({ error: { code: 'unauthenticated', message: 'Sign in first.' } }, 401);
    c.set('customer', customer);
    await next();
  };
