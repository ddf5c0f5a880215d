import type { Context } from 'hono';
import type { TokenResponse } from '@embedded-dashboard/protocol';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { errorBodyJson, type BffError } from '../errors/bff-error.js';
import { requestIdOf } from './request-context.js';

/**
 * Builds every BFF response with plain-object headers, never through `Headers`: the Node
 * adapter then writes it on its fast path, which is most of what keeps a cached token request
 * close to a bare route. This is also the one place that adds `Cache-Control: no-store`, the
 * CORS headers for allowed cross-origin callers, and on errors the request id. Every header costs
 * measurably per request, so a 200 carries only what the browser needs (no `Vary`: nothing
 * marked no-store is cached).
 */
export function respond(c: Context, status: number, body: string | null, contentType: string | undefined, extra?: Record<string, string>): Response {
  const headers: Record<string, string> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
  if (contentType !== undefined) headers['content-type'] = contentType;
  if (status >= 400) headers['x-request-id'] = requestIdOf(c);
  const corsOrigin = c.get('embedCorsOrigin');
  if (corsOrigin !== undefined) {
    headers['access-control-allow-origin'] = corsOrigin;
    headers['access-control-allow-credentials'] = 'true';
    // A page of another origin reads only CORS-safelisted headers unless told: the element's backoff needs Retry-After.
    if (status >= 400) headers['access-control-expose-headers'] = 'retry-after, x-request-id';
  }
  if (extra !== undefined) Object.assign(headers, extra);
  return new Response(body, { status, headers });
}

/**
 * A 200 token answer, its JSON written by hand: the token through `JSON.stringify` (so any
 * character is escaped), the numbers as JSON prints them (a non-finite one as null).
 */
export const respondToken = (c: Context, { token, expiresAt, serverTime }: TokenResponse): Response =>
  respond(c, 200, tokenJson(token, expiresAt, serverTime), 'application/json');

const jsonNumber = (n: number | null): string => (n !== null && Number.isFinite(n) ? String(n) : 'null');

/** Exactly `JSON.stringify({ token, expiresAt, serverTime })`, without the generic walk. */
export const tokenJson = (token: string, expiresAt: number | null, serverTime: number): string =>
  `{"token":${JSON.stringify(token)},"expiresAt":${jsonNumber(expiresAt)},"serverTime":${jsonNumber(serverTime)}}`;

export const respondJson = (c: Context, status: ContentfulStatusCode, value: unknown): Response =>
  respond(c, status, JSON.stringify(value), 'application/json');

/** The §4 error body for `error`, with `Retry-After` when it has one. */
export function respondError(c: Context, error: BffError): Response {
  const extra = error.retryAfterSeconds === undefined ? undefined : { 'retry-after': String(error.retryAfterSeconds) };
  return respond(c, error.status, errorBodyJson(error), 'application/json', extra);
}
