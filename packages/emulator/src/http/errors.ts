import { EmulatorErrorCode, type EmulatorErrorBody } from '@embedded-dashboard/protocol';

/** The HTTP status each emulator error code is answered with (the emulator's own choice). */
export const EMULATOR_ERROR_STATUS: Readonly<Record<EmulatorErrorCode, number>> = {
  unauthorized: 401,
  bad_json: 400,
  unsupported_media_type: 415,
  payload_too_large: 413,
  invalid_field: 400,
  not_found: 404,
  forbidden: 403,
  unknown_token: 404,
  method_not_allowed: 405,
  injected_fault: 503,
  rate_limited: 429,
  internal: 500,
};

/**
 * The one error type of the emulator's routes; `onError` turns it into
 * `{ success: 0, error: { code, message } }` with the status of its code (or `status`).
 */
export class EmulatorHttpError extends Error {
  override readonly name = 'EmulatorHttpError';
  readonly code: EmulatorErrorCode;
  readonly status: number;
  readonly headers: Record<string, string>;

  constructor(code: EmulatorErrorCode, message: string, options: { status?: number; headers?: Record<string, string>; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.code = code;
    this.status = options.status ?? EMULATOR_ERROR_STATUS[code];
    this.headers = options.headers ?? {};
  }

  getResponse(): Response {
    return errorResponse(this.code, this.message, this.status, this.headers);
  }
}

/** Builds the emulator's failure response. */
export function errorResponse(code: EmulatorErrorCode, message: string, status = EMULATOR_ERROR_STATUS[code], headers: Record<string, string> = {}): Response {
  const body: EmulatorErrorBody = { success: 0, error: { code, message } };
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', ...headers },
  });
}

/** Maps anything thrown to a response; unexpected errors become a 500 that reveals nothing. */
export function toErrorResponse(error: unknown): Response {
  if (error instanceof EmulatorHttpError) return error.getResponse();
  return errorResponse(EmulatorErrorCode.internal, 'internal error');
}
