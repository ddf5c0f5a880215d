import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { EmulatorErrorCode, readAtMost } from '@embedded-dashboard/protocol';
import { EmulatorHttpError } from './errors.js';

/**
 * What the emulator's app reads from Hono's `env` (the second argument of `app.fetch`):
 * - `incoming`: set by `@hono/node-server`; the raw Node request, the only place a GET body
 *   can be read on a real socket (the adapter does not give a GET `Request` a body).
 * - `rawBody`: the in-process way to send a body with any method, GET included, since a
 *   `Request` with method GET cannot carry one: `app.request(url, init, { rawBody: '{…}' })`.
 */
export interface EmulatorBindings {
  incoming?: IncomingMessage;
  rawBody?: string | Uint8Array;
}

export interface EmulatorEnv {
  Bindings: EmulatorBindings;
}

/** Nesting deeper than this is refused: serialising it again would risk the stack. */
const MAX_JSON_DEPTH = 32;

const tooLarge = (limit: number) =>
  new EmulatorHttpError(EmulatorErrorCode.payloadTooLarge, `request body exceeds ${limit} bytes`, { headers: { Connection: 'close' } });

/** Accepts `application/json`, optionally with `charset=utf-8`; nothing else. */
function assertJsonContentType(c: Context): void {
  const header = c.req.header('content-type') ?? '';
  const [type, ...params] = header.split(';').map((part) => part.trim().toLowerCase());
  const charsetOk = params.every((param) => !param.startsWith('charset=') || param === 'charset=utf-8' || param === 'charset="utf-8"');
  if (type !== 'application/json' || !charsetOk) {
    throw new EmulatorHttpError(EmulatorErrorCode.unsupportedMediaType, 'Content-Type must be application/json (UTF-8)');
  }
}

/**
 * How many bytes past the limit are read and thrown away before a 413 is answered. The 413
 * closes the connection; closing it while the client is still sending makes the kernel reset
 * it, and the client may never read the answer. Reading the rest first lets it see the 413; a
 * body larger still is refused at once (then the client may see a reset).
 */
const MAX_DISCARD_BYTES = 16 * 1024 * 1024;

/** Reads the body as bytes, from `rawBody`, the raw Node request or the `Request`. */
async function readBodyBytes(c: Context<EmulatorEnv>, limit: number): Promise<Uint8Array> {
  const declared = Number(c.req.header('content-length'));
  const env = c.env ?? {};
  if (env.incoming) {
    if (Number.isFinite(declared) && declared > limit + MAX_DISCARD_BYTES) throw tooLarge(limit);
    return readIncoming(env.incoming, limit);
  }
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  if (env.rawBody !== undefined) {
    const bytes = typeof env.rawBody === 'string' ? new TextEncoder().encode(env.rawBody) : env.rawBody;
    if (bytes.byteLength > limit) throw tooLarge(limit);
    return bytes;
  }
  const stream = c.req.raw.body;
  if (!stream) return new Uint8Array();
  return readStream(stream, limit);
}

/**
 * Reads the raw Node request (any method: `@hono/node-server` builds the `Request` body only
 * when asked, and it is not). Over the limit it keeps reading and discarding up to
 * `MAX_DISCARD_BYTES`, and rejects with the 413 once the body has ended.
 */
function readIncoming(incoming: IncomingMessage, limit: number): Promise<Uint8Array> {
  if (incoming.readableEnded) return Promise.resolve(new Uint8Array());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onAbort);
      incoming.off('close', onAbort);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit + MAX_DISCARD_BYTES) {
        cleanup();
        incoming.pause();
        reject(tooLarge(limit));
      } else if (size <= limit) chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      if (size > limit) reject(tooLarge(limit));
      else resolve(Buffer.concat(chunks));
    };
    const onAbort = () => {
      cleanup();
      reject(new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body was not fully received'));
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onAbort);
    incoming.on('close', onAbort);
  });
}

async function readStream(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  let bytes: Uint8Array | undefined;
  try {
    bytes = await readAtMost(stream, limit);
  } catch (error) {
    throw new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body was not fully received', { cause: error });
  }
  if (bytes === undefined) throw tooLarge(limit);
  return bytes;
}

function depthOf(value: unknown): number {
  // Iterative so that measuring a hostile document cannot itself overflow the stack.
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth + 1 > max) max = depth + 1;
    if (max > MAX_JSON_DEPTH) return max;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return max;
}

/** Decodes strict UTF-8 and parses JSON; the result must be a plain object. */
function parseJsonObject(bytes: Uint8Array): Record<string, unknown> {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body is not valid UTF-8');
  }
  if (text.trim() === '') throw new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body is empty; a JSON object is required');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body is not valid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new EmulatorHttpError(EmulatorErrorCode.badJson, 'request body must be a JSON object');
  }
  if (depthOf(value) > MAX_JSON_DEPTH) {
    throw new EmulatorHttpError(EmulatorErrorCode.invalidField, `request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  return value as Record<string, unknown>;
}

/** Content type, size limit, UTF-8, JSON, object: the whole way from request to object. */
export async function readJsonObject(c: Context<EmulatorEnv>, limit: number): Promise<Record<string, unknown>> {
  assertJsonContentType(c);
  return parseJsonObject(await readBodyBytes(c, limit));
}
