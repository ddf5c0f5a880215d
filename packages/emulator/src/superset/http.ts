/**
 * The Superset mode's answers as Flask writes them (JSON headers, the error envelope, the body as
 * `request.json` reads it) and the fault gate every faultable route goes through.
 */
import type { Context } from 'hono';
import { readAtMost } from '@embedded-dashboard/protocol';
import { drawFault, type FaultKind } from '../faults/settings.js';
import type { EmulatorEnv } from '../http/body.js';
import type { ResolvedSupersetOptions, SupersetFaultOperation, SupersetFaultSettings } from './options.js';
import type { SupersetSampleDashboard } from './sample-data.js';

export const JSON_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' };
export const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { ...JSON_HEADERS, ...headers } });
/** Superset's generic error envelope (superset/views/error_handling.py). */
export const supersetErrors = (status: number, message: string, errorType: string, level = 'error') =>
  json({ errors: [{ message, error_type: errorType, level, extra: {} }] }, status);
export const BAD_REQUEST = '400 Bad Request: The browser (or proxy) sent a request that this server could not understand.';

type Body = { ok: true; value: unknown } | { ok: false; response: Response };

/** The body as Flask's `request.json` sees it: JSON by content type, else 400 as Flask-AppBuilder answers. */
export async function readJson(c: Context<EmulatorEnv>, limit: number, notJsonMessage: string): Promise<Body> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') return { ok: false, response: json({ message: notJsonMessage }, 400) };
  const stream = c.req.raw.body;
  const bytes = stream ? await readAtMost(stream, limit).catch(() => null) : new Uint8Array();
  if (bytes === undefined) return { ok: false, response: json({ message: '413 Request Entity Too Large' }, 413, { Connection: 'close' }) };
  if (bytes === null) return { ok: false, response: json({ message: BAD_REQUEST }, 400) };
  try {
    return { ok: true, value: JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes)) };
  } catch {
    return { ok: false, response: json({ message: BAD_REQUEST }, 400) };
  }
}

/** Python's `uuid.UUID(text)` as far as `/embedded/<uuid>` needs it: hex with or without hyphens, any case. */
export function normalizeUuid(text: string): string | undefined {
  const hex = text
    .replace(/^urn:uuid:/i, '')
    .replace(/^\{|\}$/g, '')
    .replace(/-/g, '')
    .toLowerCase();
  if (!/^[0-9a-f]{32}$/.test(hex)) return undefined;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export type Handler = (c: Context<EmulatorEnv>) => Promise<Response>;
/** Wraps a route's handler in the fault gate of its operation. */
export type WithFaults = (operation: SupersetFaultOperation, wrongAnswer: () => unknown, handler: Handler) => Handler;

/** What each route module is given: the resolved options, the fault gate and the lookups they share. */
export interface SupersetRouteContext {
  config: ResolvedSupersetOptions;
  withFaults: WithFaults;
  byUuid: ReadonlyMap<string, SupersetSampleDashboard>;
}

/** The fault gate over live settings: counts the request, then latency first, then the fault's answer, if any. */
export function faultGate(current: () => SupersetFaultSettings, requests: Record<SupersetFaultOperation, number>): WithFaults {
  return (operation, wrongAnswer, handler) => async (c) => {
    requests[operation]++;
    const settings = current();
    if (settings.latencyMs && (!settings.operations || settings.operations.includes(operation))) {
      await new Promise((resolve) => setTimeout(resolve, settings.latencyMs));
    }
    const kind: FaultKind | undefined = drawFault(settings, operation, Math.random);
    if (kind === 'serverError') return json({ message: 'injected fault: service unavailable' }, 503);
    if (kind === 'rateLimit')
      return json({ message: '429 Too Many Requests: injected fault' }, 429, { 'Retry-After': String(settings.retryAfterSeconds ?? 1) });
    if (kind === 'failure') return json(wrongAnswer());
    if (kind === 'malformed') return new Response('{"result":', { status: 200, headers: JSON_HEADERS });
    if (kind === 'drop') {
      const socket = c.env?.incoming?.socket;
      if (!socket) return Response.error();
      socket.destroy();
      return new Response(null, { status: 204 });
    }
    return handler(c);
  };
}
