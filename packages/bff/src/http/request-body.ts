import type { Context } from 'hono';
import { readAtMost } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { nodeIncoming, requestHeader } from './request-header.js';

const decoder = new TextDecoder('utf-8', { fatal: true });

const mediaType = (value: string | undefined): string | undefined => (value === undefined ? undefined : value.split(';', 1)[0]!.trim().toLowerCase());

const isJsonContentType = (value: string | undefined): boolean => value === 'application/json' || mediaType(value) === 'application/json';

const tooLarge = (limit: number) => new BffError('bad_request', `request body is larger than ${limit} bytes`, { status: 413 });

/**
 * On Node, a small body usually arrives with its headers, and by the next microtask the parser
 * has buffered it in the request stream: take it from there in one `read()`, instead of the
 * fetch adapter's listeners, flowing mode and `end` event. All `length` bytes buffered is the
 * whole body (the parser frames it by Content-Length and never buffers more). `undefined` when it
 * is not all there yet (or not on Node): then the body is read the standard way, nothing consumed.
 */
async function bufferedNodeBody(c: Context, length: number): Promise<Uint8Array | undefined> {
  const incoming = nodeIncoming(c);
  if (incoming?.read === undefined) return undefined;
  await Promise.resolve();
  if (incoming.readableDidRead !== false || incoming.readableLength !== length) return undefined;
  const body = incoming.read() ?? undefined;
  // Flowing, the stream ends by itself when the parser marks the message complete; left paused it
  // would not, and the adapter would then drain it with timers after the response.
  incoming.resume?.();
  return body;
}

async function readLimited(c: Context, limit: number): Promise<Uint8Array | undefined> {
  const declared = requestHeader(c, 'content-length');
  if (declared !== undefined) {
    const length = Number(declared);
    if (!Number.isInteger(length) || length < 0) throw new BffError('bad_request', 'invalid Content-Length');
    if (length > limit) throw tooLarge(limit);
    if (length === 0) return undefined;
    const buffered = await bufferedNodeBody(c, length);
    if (buffered !== undefined) return buffered;
    // The HTTP layer frames the body by Content-Length, so reading it whole is bounded.
    return new Uint8Array(await c.req.raw.arrayBuffer());
  }
  const stream = c.req.raw.body;
  if (stream === null) return undefined;
  const body = await readAtMost(stream, limit);
  if (body === undefined) throw tooLarge(limit);
  return body;
}

/**
 * Reads a token route's body: `Content-Type: application/json` only (a CSRF defence: a
 * cross-site form cannot send it without a preflight), at most `limit` bytes, and a JSON object
 * or nothing. Returns `undefined` for an empty body.
 */
export async function readJsonObject(c: Context, limit: number): Promise<Record<string, unknown> | undefined> {
  if (!isJsonContentType(requestHeader(c, 'content-type'))) {
    throw new BffError('bad_request', 'Content-Type must be application/json', { status: 415 });
  }
  return parseJsonObject(await readLimited(c, limit));
}

/**
 * Reads a beacon's body: JSON sent as `text/plain` (what `navigator.sendBeacon` sends a string as:
 * a CORS-safelisted type, so no preflight; the route relies on the origin guard and the session,
 * not on the type) or `application/json`, at most `limit` bytes, a JSON object or nothing.
 */
export async function readBeaconObject(c: Context, limit: number): Promise<Record<string, unknown> | undefined> {
  checkBeaconType(c);
  return parseJsonObject(await readLimited(c, limit));
}

/** Throws the 415 of {@link readBeaconObject} at once, before anything else is looked at. */
export function checkBeaconType(c: Context): void {
  const type = requestHeader(c, 'content-type');
  if (!isJsonContentType(type) && mediaType(type) !== 'text/plain') {
    throw new BffError('bad_request', 'Content-Type must be text/plain or application/json', { status: 415 });
  }
}

function parseJsonObject(bytes: Uint8Array | undefined): Record<string, unknown> | undefined {
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  // The element always sends exactly `{}` to /token: answer that without a JSON parse.
  if (bytes.byteLength === 2 && bytes[0] === 0x7b && bytes[1] === 0x7d) return {};
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new BffError('bad_request', 'request body is not valid UTF-8 JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new BffError('bad_request', 'request body must be a JSON object');
  }
  return value as Record<string, unknown>;
}
