import type { Context } from 'hono';

/**
 * The origin of the page that asks for an embed token, for its `iss`: the origin rule's
 * `embedPageOrigin` (routes/origin-guard.ts), the browser's own `Origin` of the token request,
 * which no page can set, once the rule accepted it as the BFF's own public origin or an allowed
 * one. `undefined` for callers that are no browser (no `Origin`; they hold their own session):
 * their tokens carry no `iss`.
 */
export const pageOriginOf = (c: Context): string | undefined => c.get('embedPageOrigin');
