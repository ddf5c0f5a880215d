import type { IncomingMessage, ServerResponse } from 'node:http';
import { startLoopbackServer } from '../../../../test/support/loopback-server.js';

/** What the fake vendor does with one request; `body` is the parsed JSON request body (or `{}`). */
export type VendorBehaviour = (res: ServerResponse, body: Record<string, unknown>, req: IncomingMessage) => void;

export interface HostileVendor {
  url: string;
  /** Requests that reached the vendor, by method. */
  calls: { GET: number; PUT: number; POST: number };
  behave(behaviour: VendorBehaviour): void;
  close(): Promise<void>;
}

/** The documented 200 answer for the operation `req` asks for, with `token` as the group's token. */
export function groupAnswer(req: IncomingMessage, body: Record<string, unknown>, token: string): string {
  const id = typeof body.user_group_id === 'string' ? body.user_group_id : 'unknown';
  const name = typeof body.name === 'string' ? body.name : id;
  const group = { team_id: 1, token, name, provided_id: id, properties: body.properties ?? {} };
  if (req.method === 'GET') return JSON.stringify({ success: 1, new_user_group: false, user_group: group });
  return JSON.stringify({ success: 1, user_group: { ...group, api_environment_tag: 'Customer' } });
}

/** Answers every operation with the documented shape and this token. */
export const answerWithToken =
  (token: string): VendorBehaviour =>
  (res, body, req) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(groupAnswer(req, body, token));

/** Reads the request and never answers. */
export const neverAnswer: VendorBehaviour = () => undefined;

/**
 * Sends the status line and then the body one byte every `intervalMs`: every read makes
 * progress, so only a deadline on the whole exchange (not an idle timeout) ends it.
 */
export const trickle =
  (intervalMs: number, token = 'trickled-token-0123456789'): VendorBehaviour =>
  (res, body, req) => {
    const text = groupAnswer(req, body, token);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)) });
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed || at >= text.length) return void clearInterval(timer);
      res.write(text[at++]);
      if (at === text.length) res.end();
    }, intervalMs);
    res.on('close', () => clearInterval(timer));
  };

/**
 * A vendor on a real socket (127.0.0.1, port 0) whose answers a test decides: wrong shapes,
 * hostile tokens, silence, a byte at a time. Reads GET bodies like the real one.
 */
export async function startHostileVendor(initial: VendorBehaviour): Promise<HostileVendor> {
  let behaviour = initial;
  const calls = { GET: 0, PUT: 0, POST: 0 };
  const server = await startLoopbackServer((req, res, raw) => {
    if (req.method === 'GET' || req.method === 'PUT' || req.method === 'POST') calls[req.method]++;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
    } catch {
      body = {};
    }
    behaviour(res, body, req);
  });
  return {
    url: server.url,
    calls,
    behave(next) {
      behaviour = next;
    },
    close: () => server.close(),
  };
}
