import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UserGroupClient } from '@embedded-dashboard/client';
import { BFF_REQUEST_DEADLINE_MS, TOKEN_REQUEST_TIMEOUT_MS, VENDOR_ATTEMPT_TIMEOUT_MS, VENDOR_CALL_DEADLINE_MS } from '@embedded-dashboard/protocol';
// The element's own request code, run against the real BFF: what a browser would see.
import { requestToken, TokenRequestError } from '../../element/src/token/request-token.js';
import { TOKEN_TIMEOUT_MS } from '../../element/src/token/token-controller.js';
import { socketBffs } from '../test/support/socket-bffs.js';
import { createBffApp } from './app.js';
import type { UserGroupUpstream } from './customer-token/upstream.js';
import { API_TOKEN, captureLogs, findLeaks, session, SESSION_SECRET } from '../test/support/fixtures.js';
import { neverAnswer, startHostileVendor, trickle, type VendorBehaviour } from '../test/support/hostile-vendor.js';

const bffs = socketBffs();
afterEach(async () => {
  await bffs.closeAll();
  expect(findLeaks()).toEqual([]);
});

/**
 * The BFF as the CLI builds it: a client with its default deadlines, on a real socket, in front
 * of `behaviour`; or in front of `upstream`, an integrator's own client with no deadline at all.
 */
async function bffBehind(behaviour: VendorBehaviour, upstream?: UserGroupUpstream) {
  const vendor = await startHostileVendor(behaviour);
  const client = new UserGroupClient({ baseUrl: vendor.url, apiToken: API_TOKEN });
  const app = createBffApp({
    upstream: upstream ?? client,
    session: { secret: SESSION_SECRET, cookie: 'sid' },
    logger: captureLogs().logger,
    rateLimit: false,
    secrets: [API_TOKEN],
  });
  const url = await bffs.serve(
    app,
    () => client.close(),
    () => vendor.close(),
  );
  return { url, vendor };
}

// Node's fetch has no cookie jar: for this file, every fetch carries the session a browser would
// send. Installed once and restored after the file: swapped per request, three requests at once
// each restored what the one before had installed, which left a cookie-adding fetch behind.
const realFetch = globalThis.fetch;
beforeAll(async () => {
  const cookie = `sid=${await session()}`;
  globalThis.fetch = (input, init) => realFetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), cookie } });
});
afterAll(() => {
  globalThis.fetch = realFetch;
});

/** One token request exactly as the element makes it (its own timeout, TOKEN_REQUEST_TIMEOUT_MS, included), with a cookie session. */
async function elementAsks(url: string): Promise<TokenRequestError> {
  const outcome = await requestToken(`${url}/embed/token`, undefined, { credentials: 'same-origin' }).catch((e: unknown) => e);
  if (!(outcome instanceof TokenRequestError)) throw new Error(`expected a refusal, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('one deadline budget: element ⊃ BFF ⊃ client call ⊃ attempt', () => {
  it('states each layer inside the one that calls it, with room for the network', () => {
    expect(TOKEN_TIMEOUT_MS).toBe(TOKEN_REQUEST_TIMEOUT_MS);
    expect(TOKEN_REQUEST_TIMEOUT_MS - BFF_REQUEST_DEADLINE_MS).toBeGreaterThanOrEqual(1_000);
    expect(BFF_REQUEST_DEADLINE_MS - VENDOR_CALL_DEADLINE_MS).toBeGreaterThanOrEqual(1_000);
    expect(VENDOR_CALL_DEADLINE_MS).toBeGreaterThanOrEqual(VENDOR_ATTEMPT_TIMEOUT_MS);
  });

  it('answers 504 upstream_timeout with Retry-After before the element gives up, for a vendor that never answers and one that answers byte by byte', async () => {
    const hanging: UserGroupUpstream = {
      getOrCreateUserGroup: () => new Promise(() => undefined),
      updateUserGroup: () => new Promise(() => undefined),
      rotateUserGroupToken: () => new Promise(() => undefined),
    };
    const [silent, trickling, ownClient] = await Promise.all([bffBehind(neverAnswer), bffBehind(trickle(250)), bffBehind(neverAnswer, hanging)]);
    const outcomes = await Promise.all([elementAsks(silent.url), elementAsks(trickling.url), elementAsks(ownClient.url)]);
    for (const error of outcomes) {
      // Not the element's own `timeout`: the BFF answered first, and says when to come back.
      expect({ code: error.code, status: error.status, retryable: error.retryable }).toEqual({ code: 'upstream_timeout', status: 504, retryable: true });
      expect(error.retryAfter).toBeGreaterThan(0);
    }
    expect(silent.vendor.calls.GET).toBeGreaterThanOrEqual(1);
    expect(trickling.vendor.calls.GET).toBeGreaterThanOrEqual(1);
  }, 30_000);

  it("fits the client's retries inside the BFF's deadline: a vendor answering 503 is retried, then reported as such, not as a timeout", async () => {
    const down = await bffBehind((res) => void res.writeHead(503, { 'content-type': 'application/json' }).end('{"success":0}'));
    const error = await elementAsks(down.url);
    expect({ code: error.code, status: error.status }).toEqual({ code: 'upstream_unavailable', status: 503 });
    expect(down.vendor.calls.GET).toBeGreaterThanOrEqual(2);
  }, 30_000);
});
