import { UPSTREAM_APIS, VENDOR_ATTEMPT_TIMEOUT_MS, VENDOR_CALL_DEADLINE_MS, type UpstreamApiName } from '@embedded-dashboard/protocol';
import { exploCustomerApi } from '../api/explo-customer.js';
import type { UpstreamApi } from '../api/upstream-api.js';
import { userGroupServiceApi } from '../api/user-group-service.js';
import type { Transport } from '../transport/types.js';

const APIS: Readonly<Record<UpstreamApiName, UpstreamApi>> = { 'user-group-service': userGroupServiceApi, 'explo-customer': exploCustomerApi };

/** What the client needs after its options are checked and defaulted. */
export interface ResolvedOptions {
  /** The base URL plus the API profile's root: where every route of the profile starts. */
  url: string;
  api: UpstreamApi;
  apiToken: string;
  transport: Transport | undefined;
  timeoutMs: number;
  deadlineMs: number;
  maxAttempts: number;
  maxInFlight: number;
  baseMs: number;
  maxMs: number;
  random: (() => number) | undefined;
  sleep: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
  now: (() => number) | undefined;
}

const fail = (option: string, rule: string): never => {
  throw new TypeError(`UserGroupClient: "${option}" ${rule}`);
};

function integer(option: string, value: unknown, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    return fail(option, `must be an integer from ${min} to ${max}`);
  }
  return value;
}

function optionalFunction<T>(option: string, value: unknown): T | undefined {
  if (value !== undefined && typeof value !== 'function') fail(option, 'must be a function');
  return value as T | undefined;
}

// Header values cannot carry control characters; refusing them here also stops header injection.
const HEADER_SAFE = /^[\x21-\x7e]+$/;

function resolveApi(api: unknown): UpstreamApi {
  if (api === undefined) return userGroupServiceApi;
  if (typeof api !== 'string' || !Object.hasOwn(APIS, api)) return fail('api', `must be one of ${UPSTREAM_APIS.join(', ')}`);
  return APIS[api as UpstreamApiName];
}

function resolveUrl(baseUrl: unknown, root: string): string {
  if (typeof baseUrl !== 'string' || baseUrl.length === 0) return fail('baseUrl', 'must be a non-empty string');
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return fail('baseUrl', 'must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') fail('baseUrl', 'must use http: or https:');
  if (url.username || url.password) fail('baseUrl', 'must not contain credentials (use "apiToken")');
  if (url.search || url.hash) fail('baseUrl', 'must not contain a query or a fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}${root}`;
}

/** Validates and defaults the constructor options; caller mistakes throw a `TypeError` naming the option. */
export function resolveOptions(options: unknown): ResolvedOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('UserGroupClient: options must be an object');
  const o = options as Record<string, unknown>;
  const api = resolveApi(o.api);
  const url = resolveUrl(o.baseUrl, api.root);
  // The token's value is never echoed, only the rule it broke.
  if (typeof o.apiToken !== 'string' || o.apiToken.length === 0) fail('apiToken', 'must be a non-empty string');
  const apiToken = o.apiToken as string;
  if (!HEADER_SAFE.test(apiToken)) fail('apiToken', 'must contain only visible ASCII characters');
  const backoff = o.backoff;
  if (backoff !== undefined && (typeof backoff !== 'object' || backoff === null)) fail('backoff', 'must be an object');
  const b = (backoff ?? {}) as Record<string, unknown>;
  const baseMs = integer('backoff.baseMs', b.baseMs, 200, 0, 600_000);
  const maxMs = integer('backoff.maxMs', b.maxMs, Math.max(5_000, baseMs), baseMs, 600_000);
  return {
    url,
    api,
    apiToken,
    transport: optionalFunction<Transport>('transport', o.transport),
    timeoutMs: integer('timeoutMs', o.timeoutMs, VENDOR_ATTEMPT_TIMEOUT_MS, 1, 600_000),
    deadlineMs: integer('deadlineMs', o.deadlineMs, VENDOR_CALL_DEADLINE_MS, 1, 3_600_000),
    maxAttempts: integer('maxAttempts', o.maxAttempts, 4, 1, 20),
    maxInFlight: integer('maxInFlight', o.maxInFlight, 8, 1, 1_000),
    baseMs,
    maxMs,
    random: optionalFunction('random', o.random),
    sleep: optionalFunction('sleep', o.sleep),
    now: optionalFunction('now', o.now),
  };
}
