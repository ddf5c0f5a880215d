import { isDashboardId } from './explo-embed.js';
import { isRecord } from './guards.js';
import { isUserGroupToken } from './vendor.js';

/**
 * The browser-facing contract of the BFF (ARCHITECTURE §4): routes, bodies and error codes.
 */

/** Where the BFF's token routes are mounted unless configured otherwise. */
export const DEFAULT_BFF_BASE_PATH = '/embed';

/** Route suffixes under the base path, and the health routes (not under the base path). */
export const BFF_ROUTES = {
  token: '/token',
  rotate: '/token/rotate',
  /** The element's load and renewal timings (`report-timings`), beside the token routes. */
  timings: '/timings',
  healthz: '/healthz',
  readyz: '/readyz',
  metrics: '/metrics',
} as const;

/** 200 body of `POST /embed/token` and `POST /embed/token/rotate`. Nothing else about the group. */
export interface TokenResponse {
  token: string;
  /** Epoch ms at which the holder should have rotated; `null` when the BFF's TTL is disabled. */
  expiresAt: number | null;
  /** The BFF's clock (epoch ms) when it answered, so a browser can correct its own. */
  serverTime: number;
}

/**
 * Body of `POST /embed/token` (embed-token mode; `{}` or none for a customer token): which
 * dashboard, and optionally which single chart of it, the token is for. Never a group: the
 * customer comes from the session. `chart` needs the vendor to mint (`EMBED_JWT_MINT=vendor`,
 * `generate_jwt`'s `chart_id`): the vendor's docs name no claim for it in a token the BFF mints.
 */
export interface TokenRequest {
  dashboard?: string;
  chart?: string;
}

/** Body of `POST /embed/token/rotate`: the token the caller holds, and the same scope as its token request. */
export interface RotateTokenRequest extends TokenRequest {
  token: string;
}

/** The fields a token request may carry; any other is a 400. */
export const TOKEN_REQUEST_FIELDS = ['dashboard', 'chart'] as const;

/** A chart id, as the element and the BFF accept it: the same rule as a dashboard id (1-128 of `A-Z a-z 0-9 _ -`). */
export const isChartId = (value: unknown): value is string => isDashboardId(value);

/** Type guard for a token request body: only `dashboard` and `chart`, each absent or an id. */
export function isTokenRequest(value: unknown): value is TokenRequest {
  if (!isRecord(value)) return false;
  const fields: readonly string[] = TOKEN_REQUEST_FIELDS;
  return (
    Object.keys(value).every((field) => fields.includes(field)) &&
    (value.dashboard === undefined || isDashboardId(value.dashboard)) &&
    (value.chart === undefined || isChartId(value.chart))
  );
}

/** Error codes of the BFF and what the element does with each (ARCHITECTURE §4). */
export const BffErrorCode = {
  badRequest: 'bad_request',
  unauthenticated: 'unauthenticated',
  forbidden: 'forbidden',
  rateLimited: 'rate_limited',
  upstreamError: 'upstream_error',
  upstreamUnavailable: 'upstream_unavailable',
  upstreamTimeout: 'upstream_timeout',
  internal: 'internal',
} as const;
export type BffErrorCode = (typeof BffErrorCode)[keyof typeof BffErrorCode];

/** The HTTP status each code is sent with (`bad_request` also goes out as 413 and 415). */
export const BFF_ERROR_STATUS: Readonly<Record<BffErrorCode, number>> = {
  bad_request: 400,
  unauthenticated: 401,
  forbidden: 403,
  rate_limited: 429,
  upstream_error: 502,
  upstream_unavailable: 503,
  upstream_timeout: 504,
  internal: 500,
};

/** Every BFF error body. */
export interface BffErrorBody {
  error: { code: BffErrorCode; message: string; retryable: boolean };
}

/** `GET /healthz` body. */
export interface HealthResponse {
  status: 'ok';
}

/** `GET /readyz` body (200 when the store answers, else 503). */
export interface ReadinessResponse {
  status: 'ready' | 'unavailable';
  store: 'ok' | 'degraded' | 'down';
}

/** The line the BFF CLI prints once listening (the real port follows). */
export const BFF_LISTENING_PREFIX = 'bff listening on ';

/** Type guard for a body that has the shape of a `TokenResponse`, its token a well-formed one (`isUserGroupToken`). */
export function isTokenResponse(value: unknown): value is TokenResponse {
  return (
    isRecord(value) && isUserGroupToken(value.token) && (value.expiresAt === null || Number.isFinite(value.expiresAt)) && Number.isFinite(value.serverTime)
  );
}

/** Type guard for a body that has the shape of a `BffErrorBody`. */
export function isBffErrorBody(value: unknown): value is BffErrorBody {
  const e = isRecord(value) ? value.error : undefined;
  if (!isRecord(e)) return false;
  return typeof e.code === 'string' && typeof e.message === 'string' && typeof e.retryable === 'boolean';
}
