import type { Context } from 'hono';

/**
 * Node's own request under `@hono/node-server`, as far as the BFF reads it. This module and
 * `request-body.ts` are the only code that knows it exists: everything else asks for a header
 * or the body and gets the standard answer on any other runtime.
 */
interface NodeIncoming {
  headers: Record<string, string | string[] | undefined>;
  readableLength?: number;
  readableDidRead?: boolean;
  read?(): Uint8Array | null;
  resume?(): unknown;
}

/** Node's own request under `@hono/node-server`, else `undefined`. */
export const nodeIncoming = (c: Context): NodeIncoming | undefined => (c.env as { incoming?: NodeIncoming } | undefined)?.incoming;

/**
 * One request header (lower-case `name`). On `@hono/node-server` it is read from Node's own
 * parsed headers: asking the fetch `Request` for its `Headers` makes the adapter build and
 * validate a whole `Headers` object per request, a large share of a cached token request.
 * Elsewhere (app.request, other runtimes) it is the standard lookup.
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeIncoming(c);
  if (incoming === undefined || typeof incoming.headers !== 'object') return c.req.header(name);
  const value = incoming.headers[name];
  // Node joins repeated headers with ", " except a few it keeps as arrays (set-cookie): take them as Headers would.
  return Array.isArray(value) ? value.join(', ') : value;
}
