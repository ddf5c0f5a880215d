/**
 * The one deadline budget of a token request, from the browser inwards (ARCHITECTURE §4.1).
 * Each layer gives up before the layer that called it, with a margin for the network and the
 * work around the call, so every failure is answered by the layer that knows what went wrong:
 *
 * ```
 * element: one token request                               10 s  TOKEN_REQUEST_TIMEOUT_MS
 *   BFF: the whole request, else 504 + Retry-After           8 s  BFF_REQUEST_DEADLINE_MS
 *     client: one vendor call, every retry included          6 s  VENDOR_CALL_DEADLINE_MS
 *       client: one attempt                                  3 s  VENDOR_ATTEMPT_TIMEOUT_MS
 * ```
 *
 * A request that needs two vendor calls (get-or-create, then update) can run past the client's
 * deadline; the BFF's own deadline still answers it in time. `budget.test.ts` checks the order.
 */

/** The element abandons one token request after this long, then retries with backoff. */
export const TOKEN_REQUEST_TIMEOUT_MS = 10_000;

/**
 * The BFF answers every token request within this: when its work is not done by then, 504
 * `upstream_timeout` with `Retry-After`, well before the element gives up on the request.
 */
export const BFF_REQUEST_DEADLINE_MS = 8_000;

/** `Retry-After` of the BFF's 504 when its deadline passes or the vendor did not answer in time. */
export const UPSTREAM_TIMEOUT_RETRY_AFTER_SECONDS = 2;

/** The client's default deadline for one call, retries and queueing included: inside the BFF's. */
export const VENDOR_CALL_DEADLINE_MS = 6_000;

/** The client's default timeout of one attempt (sending, waiting, reading the whole answer). */
export const VENDOR_ATTEMPT_TIMEOUT_MS = 3_000;
