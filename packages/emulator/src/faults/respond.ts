import type { Context } from 'hono';
import { EmulatorErrorCode, type EmulatorErrorBody } from '@embedded-dashboard/protocol';
import type { EmulatorEnv } from '../http/body.js';
import { errorResponse } from '../http/errors.js';
import type { FaultKind } from './settings.js';

/** A fault that rejects the request before the operation runs; `undefined` for the others. */
export function rejectingFaultResponse(kind: FaultKind, retryAfterSeconds: number): Response | undefined {
  switch (kind) {
    case 'serverError':
      return errorResponse(EmulatorErrorCode.injectedFault, 'injected fault: service unavailable', 503);
    case 'rateLimit':
      return errorResponse(EmulatorErrorCode.rateLimited, 'injected fault: rate limited', 429, { 'Retry-After': String(retryAfterSeconds) });
    case 'failure': {
      const body: EmulatorErrorBody = { success: 0, error: { code: EmulatorErrorCode.injectedFault, message: 'injected fault: call failed' } };
      return new Response(JSON.stringify(body), { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
    }
    default:
      return undefined;
  }
}

/**
 * A fault that loses the answer after the operation ran (the caller cannot know whether it
 * happened). `drop` destroys the socket; in-process, with no socket, it is `Response.error()`.
 */
export function losingFaultResponse(c: Context<EmulatorEnv>, kind: FaultKind): Response | undefined {
  if (kind === 'malformed') {
    return new Response('{"success":1,"user_group":{"token":', { status: 200, headers: { 'Content-Type': 'application/json; charset=utf-8' } });
  }
  if (kind !== 'drop') return undefined;
  const socket = c.env?.incoming?.socket;
  if (!socket) return Response.error();
  socket.destroy();
  // Never reaches anyone: the socket is gone. The adapter still needs a valid response.
  return new Response(null, { status: 204 });
}
