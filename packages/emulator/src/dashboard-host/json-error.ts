import type { Context } from 'hono';
import type { EmulatorErrorBody, EmulatorErrorCode } from '@embedded-dashboard/protocol';
import { DATA_SECURITY_HEADERS } from './security-headers.js';

/** The data route's error answer: the emulator's error body, its security headers, and `WWW-Authenticate` with a 401. */
export function jsonError(c: Context, status: 400 | 401 | 403 | 404, code: EmulatorErrorCode, message: string): Response {
  const body: EmulatorErrorBody = { success: 0, error: { code, message } };
  const headers: Record<string, string> = { ...DATA_SECURITY_HEADERS };
  if (status === 401) headers['WWW-Authenticate'] = 'Bearer';
  return c.json(body, status, headers);
}
