import { isRecord, ShapeProblem, type Expectation, type ResponseFor, type UpstreamApi } from '../api/upstream-api.js';
import { UserGroupApiFailureError, UserGroupHttpStatusError, UserGroupMalformedResponseError, UserGroupRateLimitedError } from '../errors/errors.js';
import { bodySnippet } from '../errors/redact.js';
import { parseRetryAfter } from '@embedded-dashboard/protocol';
import type { TransportResponse } from '../transport/types.js';

export type { Expectation, ResponseFor } from '../api/upstream-api.js';

/**
 * Turns a whole HTTP response into the documented result or a typed error: non-2xx, 429,
 * `success: 0`, non-JSON and any deviation from the API profile's documented shape each get their own code. The result holds
 * only the documented fields, so nothing unvalidated travels on. Error messages are redacted.
 */
export function interpretResponse<E extends Expectation>(
  expectation: E,
  response: TransportResponse,
  secrets: readonly string[],
  now: number,
  api: UpstreamApi,
): ResponseFor<E['op']> {
  const { status, body } = response;
  if (status === 429 || status < 200 || status > 299) {
    const retryAfterMs = parseRetryAfter(response.headers['retry-after'], now);
    const detail = `vendor answered HTTP ${status}: ${bodySnippet(body, secrets)}`;
    if (status === 429) throw new UserGroupRateLimitedError(detail, { status, retryAfterMs });
    throw new UserGroupHttpStatusError(detail, { status, retryAfterMs });
  }
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new UserGroupMalformedResponseError(`response is not JSON: ${bodySnippet(body, secrets)}`, { status });
  }
  if (!isRecord(json)) throw new UserGroupMalformedResponseError('response is not a JSON object', { status });
  if (json.success === 0) throw new UserGroupApiFailureError(`vendor answered success: 0: ${bodySnippet(body, secrets)}`, { status });
  if (json.success !== 1) throw new UserGroupMalformedResponseError('"success" is neither 1 nor 0', { status });
  try {
    return api.parse(expectation, json);
  } catch (error) {
    if (error instanceof ShapeProblem) throw new UserGroupMalformedResponseError(`response is not the documented shape: ${error.message}`, { status });
    throw error;
  }
}
