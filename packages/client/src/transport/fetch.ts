import { readAtMost } from '@embedded-dashboard/protocol';
import { UserGroupMalformedResponseError } from '../errors/errors.js';
import type { Transport, TransportRequest, TransportResponse } from './types.js';

/** Options of {@link createFetchTransport}. */
export interface FetchTransportOptions {
  /** The `fetch` to call. Default: the runtime's own (`globalThis.fetch`, read at each call). */
  fetch?: (input: string, init: RequestInit) => Promise<Response>;
  /** Larger response bodies are cut off and fail as `malformed_response`. Default 1 MiB. */
  maxResponseBytes?: number;
}

const DEFAULT_MAX_RESPONSE_BYTES = 1024 * 1024;

/**
 * A {@link Transport} over `fetch`, for runtimes that have nothing else (Cloudflare Workers, the
 * Next.js edge runtime) and the default there. `fetch` refuses a GET with a body (Fetch
 * standard, "new Request" step 36), so it cannot speak the user group service's get-or-create:
 * it says so (`getWithBody: false`) and `UserGroupClient` refuses that API with it. The
 * Customer API (`api: 'explo-customer'`) is POSTs only and works. Redirects are not followed
 * (a vendor API does not redirect; a redirect would resend the API token elsewhere).
 *
 * @example
 * const client = new UserGroupClient({ baseUrl, apiToken, api: 'explo-customer', transport: createFetchTransport() });
 */
export function createFetchTransport(options: FetchTransportOptions = {}): Transport {
  if (typeof options !== 'object' || options === null) throw new TypeError('createFetchTransport: options must be an object');
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1)
    throw new TypeError('createFetchTransport: "maxResponseBytes" must be a positive integer');
  if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('createFetchTransport: "fetch" must be a function');

  const fetchTransport = async (request: TransportRequest): Promise<TransportResponse> => {
    // A GET without a body (Superset's CSRF token) is ordinary fetch; only a GET with one is refused.
    if (request.method === 'GET' && request.body !== '')
      throw new TypeError('fetch cannot send a GET with a body; this API needs a transport that can (createNodeTransport)');
    const url = new URL(request.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('only http: and https: URLs are supported');
    const send = options.fetch ?? globalThis.fetch;
    const response = await send(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.method === 'GET' ? undefined : request.body,
      signal: request.signal,
      redirect: 'manual',
    });
    const status = response.status;
    const tooLarge = () => new UserGroupMalformedResponseError(`response body exceeds ${maxResponseBytes} bytes`, { status });
    if (Number(response.headers.get('content-length') ?? 0) > maxResponseBytes) {
      await response.body?.cancel().catch(() => undefined);
      throw tooLarge();
    }
    const bytes = response.body === null ? new Uint8Array(0) : await readAtMost(response.body, maxResponseBytes);
    if (bytes === undefined) throw tooLarge();
    let body: string;
    try {
      body = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new UserGroupMalformedResponseError('response body is not valid UTF-8', { status });
    }
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      headers[name.toLowerCase()] = value;
    });
    return { status, headers, body };
  };
  return Object.assign(fetchTransport, { getWithBody: false as const });
}
