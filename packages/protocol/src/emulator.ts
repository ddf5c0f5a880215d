/**
 * The emulator's own documented choices where the vendor spec is silent (ARCHITECTURE §7):
 * its error body, its error codes, its admin routes and its fault settings.
 * Clients of the real vendor must not depend on anything here beyond `success`.
 */

/** Error codes the emulator answers with, inside `{ success: 0, error: { code, message } }`. */
export const EmulatorErrorCode = {
  unauthorized: 'unauthorized',
  badJson: 'bad_json',
  unsupportedMediaType: 'unsupported_media_type',
  payloadTooLarge: 'payload_too_large',
  invalidField: 'invalid_field',
  notFound: 'not_found',
  /** The dashboard host refused an embed token: another dashboard's, another origin's, a wrong key. */
  forbidden: 'forbidden',
  unknownToken: 'unknown_token',
  methodNotAllowed: 'method_not_allowed',
  injectedFault: 'injected_fault',
  rateLimited: 'rate_limited',
  /** The emulator could not do what it acknowledged (e.g. persisting to its data file failed). */
  internal: 'internal',
} as const;
export type EmulatorErrorCode = (typeof EmulatorErrorCode)[keyof typeof EmulatorErrorCode];

/** The emulator's failure body. */
export interface EmulatorErrorBody {
  success: 0;
  error: { code: EmulatorErrorCode; message: string };
}

/** Admin routes, mounted only when the emulator runs with `--admin` (or `admin: true`). */
export const EMULATOR_ADMIN_ROUTES = {
  reset: '/__emulator/reset',
  expire: '/__emulator/expire',
  faults: '/__emulator/faults',
  stats: '/__emulator/stats',
} as const;

/** Body of `POST /__emulator/expire`: make this token stop working now. */
export interface ExpireTokenRequest {
  token: string;
}

/** `GET /__emulator/stats`. Counts successful and failed calls that reached each operation. */
export interface EmulatorStats {
  requests: { getOrCreate: number; update: number; rotate: number; generateJwt: number };
  /** Requests refused before their operation ran: `rateLimited` by the per-key `--rate-limit` (injected 429 faults not included). */
  rejected: { rateLimited: number };
  groups: number;
}

/** Which operations a fault applies to. Omitted means all four. */
export type FaultOperation = 'getOrCreate' | 'update' | 'rotate' | 'generateJwt';

/**
 * Body of `POST /__emulator/faults`; replaces the current settings (an empty object clears all).
 * Rates are probabilities in [0, 1]; each request draws once and the first matching fault wins,
 * in the order: drop, status5xx, rateLimit, failure, malformed.
 */
export interface FaultSettings {
  /** Extra milliseconds before every `/api/user` answer. */
  latencyMs?: number;
  /** Probability of destroying the socket without an answer. */
  dropRate?: number;
  /** Probability of a 503 with the error body. */
  serverErrorRate?: number;
  /** Probability of a 429 with `Retry-After: retryAfterSeconds`. */
  rateLimitRate?: number;
  retryAfterSeconds?: number;
  /** Probability of HTTP 200 with `{ success: 0 }`. */
  failureRate?: number;
  /** Probability of HTTP 200 with a body that is not valid JSON. */
  malformedRate?: number;
  /** Restrict the faults to these operations. */
  operations?: FaultOperation[];
}

/** The line the emulator CLI prints once listening (the real port follows). */
export const EMULATOR_LISTENING_PREFIX = 'emulator listening on ';
