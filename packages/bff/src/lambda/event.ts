/**
 * The HTTP events of API Gateway (HTTP API, payload 2.0; REST API, payload 1.0) and Lambda
 * function URLs (payload 2.0), checked before Hono's adapter turns one into a `Request`: a
 * malformed event (a hand-made test event, a misconfigured integration) gets the BFF's 400
 * instead of the adapter's bare text answer and its stderr line.
 */

/** What the BFF's handler accepts: an event of one of those payload versions. */
export interface LambdaHttpEvent {
  headers?: Record<string, string | undefined> | null;
  body?: string | null;
  isBase64Encoded?: boolean;
  [field: string]: unknown;
}

/** What the handler answers: API Gateway's / the function URL's response shape. */
export interface LambdaHttpResult {
  statusCode: number;
  headers?: Record<string, string>;
  multiValueHeaders?: Record<string, string[]>;
  cookies?: string[];
  body: string;
  isBase64Encoded: boolean;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// A DNS name or an IP literal, with an optional port: what a `Host` / `domainName` can be.
const HOST = /^(?:[A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;
const METHOD = /^[A-Z]{1,16}$/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isStringRecord = (value: unknown): boolean =>
  isRecord(value) && Object.values(value).every((v) => v === undefined || v === null || typeof v === 'string');

/** Why `event` is not an HTTP event the BFF can serve, or `undefined` when it is one. */
export function eventProblem(event: unknown): string | undefined {
  if (!isRecord(event)) return 'the event is not an object';
  const context = isRecord(event.requestContext) ? event.requestContext : undefined;
  const v2 = typeof event.rawPath === 'string' && isRecord(context?.http);
  const path = v2 ? event.rawPath : event.path;
  const method = v2 ? (context.http as Record<string, unknown>).method : event.httpMethod;
  if (typeof path !== 'string' || !path.startsWith('/')) return 'the event has no path (an HTTP event of API Gateway or a function URL has rawPath or path)';
  if (typeof method !== 'string' || !METHOD.test(method)) return 'the event has no HTTP method';
  if (event.headers !== undefined && event.headers !== null && !isStringRecord(event.headers)) return 'the event headers must be a record of strings';
  if (event.multiValueHeaders !== undefined && event.multiValueHeaders !== null && !isRecord(event.multiValueHeaders))
    return 'the event multiValueHeaders must be a record';
  if (event.cookies !== undefined && !(Array.isArray(event.cookies) && event.cookies.every((c) => typeof c === 'string')))
    return 'the event cookies must be an array of strings';
  const headers = isRecord(event.headers) ? event.headers : {};
  const host = typeof context?.domainName === 'string' ? context.domainName : Object.entries(headers).find(([name]) => name.toLowerCase() === 'host')?.[1];
  if (typeof host !== 'string' || !HOST.test(host)) return 'the event names no valid host (requestContext.domainName or a Host header)';
  if (event.body !== undefined && event.body !== null && typeof event.body !== 'string') return 'the event body must be a string';
  if (event.isBase64Encoded === true && typeof event.body === 'string' && !BASE64.test(event.body)) return 'the event body is marked base64 but is not base64';
  return undefined;
}
