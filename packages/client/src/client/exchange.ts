import { VENDOR_AUTH_SCHEME } from '@embedded-dashboard/protocol';
import type { Expectation } from '../api/upstream-api.js';
import type { ConcurrencyLimit } from '../concurrency/concurrency-limit.js';
import { UserGroupApiError, UserGroupTimeoutError } from '../errors/errors.js';
import type { Transport, TransportResponse } from '../transport/types.js';
import type { ResolvedOptions } from '../validation/options.js';
import { invoke, linkedController, raceAbort } from '../transport/signals.js';
import { send } from '../transport/traced.js';

/** What every exchange of one client shares. */
export interface ExchangeContext {
  readonly options: ResolvedOptions;
  readonly transport: Transport;
  /** The client's `maxInFlight` slots: an exchange waits for one before it sends. */
  readonly slots: ConcurrencyLimit;
}

/**
 * One exchange with the vendor: waits for a slot, then sends `body` to the operation's route with
 * the API token and its own timeout (`timeoutMs`). Never throws: a failure comes back as the typed
 * error, a timeout of this attempt as `timeout`, and anything that stopped `scope` (the caller's
 * abort, the call's deadline) as `interrupted` makes it.
 */
export async function exchange(
  { options, transport, slots }: ExchangeContext,
  op: Expectation['op'],
  body: string,
  scope: AbortSignal,
  interrupted: (caught: unknown) => UserGroupApiError,
  attemptNumber = 1,
): Promise<TransportResponse | UserGroupApiError> {
  let release: () => void;
  try {
    release = await slots.acquire(scope);
  } catch (caught) {
    return interrupted(caught);
  }
  const { url: root, api, apiToken, timeoutMs } = options;
  const { method, path } = api.route(op);
  const url = `${root}${path}`;
  const attempt = linkedController([scope]);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    attempt.controller.abort(new Error('attempt timed out'));
  }, timeoutMs);
  try {
    const signal = attempt.controller.signal;
    const headers = {
      [api.authHeader]: `${VENDOR_AUTH_SCHEME} ${apiToken}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
    };
    const response = await raceAbort(
      invoke(() => send(transport, { method, url, headers, body, signal }, { vendor: 'explo', operation: op, attempt: attemptNumber })),
      signal,
    );
    return isTransportResponse(response) ? response : new UserGroupApiError('malformed_response', 'transport resolved with something that is not a response');
  } catch (caught) {
    if (timedOut && !scope.aborted) return new UserGroupTimeoutError(`attempt timed out after ${timeoutMs} ms`);
    return interrupted(caught);
  } finally {
    clearTimeout(timer);
    attempt.dispose();
    release();
  }
}

function isTransportResponse(value: unknown): value is TransportResponse {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return typeof r.status === 'number' && Number.isInteger(r.status) && typeof r.body === 'string' && typeof r.headers === 'object' && r.headers !== null;
}
