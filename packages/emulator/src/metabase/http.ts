/**
 * The Metabase mode's answers as Metabase's Ring server writes them (an API error is its sentence
 * as plain text; data is JSON) and the fault gate every route goes through.
 */
import type { Context } from 'hono';
import { drawFault } from '../faults/settings.js';
import type { EmulatorEnv } from '../http/body.js';
import type { MetabaseFaultOperation, MetabaseFaultSettings } from './options.js';

const SECURITY_HEADERS = { 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json;charset=utf-8', ...SECURITY_HEADERS, ...headers } });
/** `api/check`'s failure: the status and the sentence as the body. */
export const text = (body: string, status: number, headers: Record<string, string> = {}) =>
  new Response(body, { status, headers: { 'Content-Type': 'text/plain;charset=utf-8', ...SECURITY_HEADERS, ...headers } });

export type Handler = (c: Context<EmulatorEnv>) => Promise<Response> | Response;
export type WithFaults = (operation: MetabaseFaultOperation, handler: Handler) => Handler;

/**
 * The fault gate over live settings: counts the request, then latency, then the drawn fault's
 * answer: 503, 429 with `Retry-After`, a 200 of `{}` (the wrong answer), truncated JSON, a dropped
 * connection.
 */
export function faultGate(current: () => MetabaseFaultSettings, requests: Record<MetabaseFaultOperation, number>): WithFaults {
  return (operation, handler) => async (c) => {
    requests[operation]++;
    const settings = current();
    if (settings.latencyMs && (!settings.operations || settings.operations.includes(operation))) {
      await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));
    }
    const kind = drawFault(settings, operation, Math.random);
    if (kind === 'serverError') return text('injected fault: service unavailable', 503);
    if (kind === 'rateLimit') return text('injected fault: too many requests', 429, { 'Retry-After': String(settings.retryAfterSeconds ?? 1) });
    if (kind === 'failure') return json({});
    if (kind === 'malformed') return new Response('{"data":{"rows":', { status: 200, headers: { 'Content-Type': 'application/json;charset=utf-8' } });
    if (kind === 'drop') {
      const socket = c.env?.incoming?.socket;
      if (!socket) return Response.error();
      socket.destroy();
      return new Response(null, { status: 204 });
    }
    return handler(c);
  };
}
