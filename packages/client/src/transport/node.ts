import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { UserGroupMalformedResponseError } from '../errors/errors.js';
import type { Transport, TransportRequest, TransportResponse } from './types.js';

/** Options of {@link createNodeTransport}. */
export interface NodeTransportOptions {
  /** Sockets per vendor host. Default `8`. */
  maxSockets?: number;
  /** Reuse connections between calls. Default `true`. */
  keepAlive?: boolean;
  /** Larger response bodies are cut off and fail as `malformed_response`. Default 1 MiB. */
  maxResponseBytes?: number;
}

/** A {@link Transport} that owns keep-alive sockets; `close()` destroys them. */
export type NodeTransport = Transport & { close(): void };

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

function positiveInteger(name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`createNodeTransport: "${name}" must be a positive integer`);
  }
  return value;
}

function lowerCaseHeaders(res: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return headers;
}

/**
 * The default transport: node:http / node:https with a keep-alive agent. It sends the JSON body
 * on every method, GET included, with an exact `Content-Length`.
 *
 * @example
 * const transport = createNodeTransport({ maxSockets: 4 });
 * const client = new UserGroupClient({ baseUrl, apiToken, transport });
 * // …
 * transport.close();
 */
export function createNodeTransport(options: NodeTransportOptions = {}): NodeTransport {
  if (typeof options !== 'object' || options === null) throw new TypeError('createNodeTransport: options must be an object');
  const maxSockets = positiveInteger('maxSockets', options.maxSockets, 8);
  const maxResponseBytes = positiveInteger('maxResponseBytes', options.maxResponseBytes, DEFAULT_MAX_RESPONSE_BYTES);
  if (options.keepAlive !== undefined && typeof options.keepAlive !== 'boolean') {
    throw new TypeError('createNodeTransport: "keepAlive" must be a boolean');
  }
  const keepAlive = options.keepAlive ?? true;
  const httpAgent = new HttpAgent({ keepAlive, maxSockets });
  const httpsAgent = new HttpsAgent({ keepAlive, maxSockets });
  let closed = false;

  const nodeTransport = (request: TransportRequest): Promise<TransportResponse> =>
    new Promise<TransportResponse>((resolve, reject) => {
      if (closed) throw new Error('transport is closed');
      if (request.signal.aborted) throw request.signal.reason ?? new Error('aborted');
      const url = new URL(request.url);
      const isHttps = url.protocol === 'https:';
      if (!isHttps && url.protocol !== 'http:') throw new TypeError('only http: and https: URLs are supported');
      const payload = Buffer.from(request.body, 'utf8');
      const send = isHttps ? httpsRequest : httpRequest;
      const req = send(url, {
        method: request.method,
        headers: { ...request.headers, 'content-length': String(payload.length) },
        agent: isHttps ? httpsAgent : httpAgent,
        signal: request.signal,
      });
      req.on('error', reject);
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        const tooLarge = () => {
          reject(new UserGroupMalformedResponseError(`response body exceeds ${maxResponseBytes} bytes`, { status }));
          req.destroy();
        };
        if (Number(res.headers['content-length'] ?? 0) > maxResponseBytes) return tooLarge();
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxResponseBytes) return tooLarge();
          chunks.push(chunk);
        });
        res.on('error', reject);
        res.on('close', () => {
          if (!res.complete) reject(new Error('connection closed before the response was complete'));
        });
        res.on('end', () => {
          let body: string;
          try {
            body = new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks));
          } catch {
            return reject(new UserGroupMalformedResponseError('response body is not valid UTF-8', { status }));
          }
          resolve({ status, headers: lowerCaseHeaders(res), body });
        });
      });
      req.end(payload);
    });

  return Object.assign(nodeTransport, {
    close(): void {
      closed = true;
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  });
}
