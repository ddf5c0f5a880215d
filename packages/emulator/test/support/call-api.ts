import type { Hono } from 'hono';
import type { EmulatorEnv } from '../../src/http/body.js';

/** Shared by the emulator's own tests only (excluded from the build). */
export const CUSTOMER_KEY = 'dev-customer-key';
export const TESTING_KEY = 'dev-testing-key';

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  /** Sent as is instead of JSON-encoding `body`. */
  raw?: string | Uint8Array;
  contentType?: string | null;
  authorization?: string;
}

/**
 * Calls `/api/user` in-process; GET bodies travel through `env.rawBody`. `body` is `any`
 * because tests assert on every shape the emulator answers, error bodies included.
 */
export async function callApi(app: Hono<EmulatorEnv>, method: string, options: CallOptions = {}): Promise<{ status: number; body: any; response: Response }> {
  const headers: Record<string, string> = {};
  const key = options.key === undefined ? CUSTOMER_KEY : options.key;
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  else if (key !== null) headers.Authorization = `Token ${key}`;
  if (options.contentType !== null) headers['Content-Type'] = options.contentType ?? 'application/json';
  const payload = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const init: RequestInit = { method, headers };
  let env: EmulatorEnv['Bindings'] = {};
  if (method === 'GET' || method === 'HEAD') env = payload === undefined ? {} : { rawBody: payload };
  else if (payload !== undefined) init.body = typeof payload === 'string' ? payload : new Blob([payload as Uint8Array<ArrayBuffer>]);
  const response = await app.request('/api/user', init, env);
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // Malformed-body faults are asserted on as text.
  }
  return { status: response.status, body: body as any, response };
}

export const group = (id: string, extra: Record<string, unknown> = {}) => ({
  name: `Group ${id}`,
  user_group_id: id,
  mapping: { sales: `ds-${id}` },
  properties: { region: 'EU' },
  ...extra,
});
