import { sha256 } from '#bff-platform';
import { decodeJwt } from 'jose';
import type { SupersetGuestTokenRequest, TokenResponse } from '@embedded-dashboard/protocol';
import { isUserGroupToken, reuseMinLeftMs } from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import type { HeldEntry } from '../customer-token/fleet-lock.js';
import { rotationThrottle } from '../customer-token/rotation.js';
import { isVendorOutage } from '../customer-token/vendor-calls.js';
import { BffError } from '../errors/bff-error.js';
import type { CallPriority } from '../vendor-budget/upstream-budget.js';
import type { GroupEntry } from '../store/types.js';
import type { VendorContext } from '../vendor/vendor-adapter.js';
import type { SupersetGuestTokenApi } from './options.js';
import type { SupersetServiceLogin } from './service-login.js';

/** The token's own `exp` in epoch ms, when it is a JWT with one. */
function expiresAtOf(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a failure is Superset refusing the service account's sign-in (expired access token, CSRF cookie gone): signing in again may help. */
const isSessionRejected = (error: unknown): boolean => {
  const cause = error instanceof BffError ? error.cause : error;
  return cause instanceof Error && cause.name === 'SupersetSessionRejectedError';
};

/**
 * Guest tokens minted by Superset (`POST /api/v1/security/guest_token/`), one per customer,
 * dashboard and exact token content (guest user and rendered row-level security) for the whole
 * fleet: kept in the store until shortly before their own `exp` and handed to every session
 * they describe, so a customer's dashboard costs at most one guest-token call per token lifetime.
 * A token is never handed to a session whose guest token would say something else (another
 * user's name, other claims in its rules): the content's digest is in the key. One process
 * mints at a time (the fleet lock `superset-guest:<key>`). Every call goes through the shared
 * `VendorCalls` (breaker, budget, timing, error mapping), and while Superset is down a stored
 * token that has not expired is served. `expiresAt` is the token's own `exp`.
 */
export class SupersetVendorGuestTokens {
  readonly #client: SupersetGuestTokenApi;
  readonly #login: SupersetServiceLogin;
  readonly #context: VendorContext;
  readonly #inFlight = new Map<string, Promise<GroupEntry>>();

  constructor(client: SupersetGuestTokenApi, login: SupersetServiceLogin, context: VendorContext) {
    this.#client = client;
    this.#login = login;
    this.#context = context;
  }

  async token(caller: Caller, request: SupersetGuestTokenRequest): Promise<TokenResponse> {
    const { key, fingerprint } = this.#keyOf(caller, request);
    const stored = await this.#read(key, fingerprint);
    if (stored !== undefined && this.#reusable(stored)) return this.#respond(stored);
    return this.#respond(await this.#mintOnce(caller, request, key, fingerprint, stored, undefined));
  }

  async renew(caller: Caller, request: SupersetGuestTokenRequest, presented: string): Promise<TokenResponse> {
    const { key, fingerprint } = this.#keyOf(caller, request);
    const stored = await this.#read(key, fingerprint);
    if (stored !== undefined && stored.token !== presented && this.#reusable(stored)) return this.#respond(stored);
    if (stored !== undefined && stored.token === presented) {
      const throttled = rotationThrottle(
        'this guest token was minted',
        stored.lastRotatedAt ?? 0,
        expiresAtOf(stored.token)! - stored.firstSeenAt,
        this.#context,
      );
      if (throttled) throw throttled;
    }
    return this.#respond(await this.#mintOnce(caller, request, key, fingerprint, stored, presented));
  }

  #keyOf(caller: Caller, request: SupersetGuestTokenRequest): { key: string; fingerprint: string } {
    const dashboard = request.resources[0]!.id;
    const fingerprint = `${dashboard} ${sha256(JSON.stringify([request.user, request.rls]), 'base64url').slice(0, 32)}`;
    // Dashboard and digest hold no space; the customer's key (which may) goes last.
    return { key: `superset-guest:${fingerprint} ${caller.group.key}`, fingerprint };
  }

  async #read(key: string, fingerprint: string): Promise<GroupEntry | undefined> {
    const entry = await this.#context.entries.read(key);
    return entry?.fingerprint === fingerprint && expiresAtOf(entry.token) !== undefined ? entry : undefined;
  }

  readonly #respond = (entry: GroupEntry): TokenResponse => ({ token: entry.token, expiresAt: expiresAtOf(entry.token)!, serverTime: this.#context.now() });

  #reusable(entry: GroupEntry): boolean {
    const expiresAt = expiresAtOf(entry.token)!;
    const lifetimeMs = expiresAt - entry.firstSeenAt;
    const leftMs = expiresAt - this.#context.now();
    return leftMs > 0 && leftMs >= reuseMinLeftMs(lifetimeMs);
  }

  #mintOnce(
    caller: Caller,
    request: SupersetGuestTokenRequest,
    key: string,
    fingerprint: string,
    stored: GroupEntry | undefined,
    replacing: string | undefined,
  ): Promise<GroupEntry> {
    const flight = `${key}\n${replacing ?? ''}`;
    let pending = this.#inFlight.get(flight);
    if (pending === undefined) {
      const answers = (entry: GroupEntry) =>
        entry.fingerprint === fingerprint && entry.token !== replacing && expiresAtOf(entry.token) !== undefined && this.#reusable(entry);
      pending = this.#context.entries
        .exclusive(
          `superset-guest:${key}`,
          key,
          answers,
          async (held) => {
            const read = await held.read();
            const latest = read?.fingerprint === fingerprint && expiresAtOf(read.token) !== undefined ? read : undefined;
            return latest !== undefined && answers(latest) ? latest : this.#mint(caller, request, latest ?? stored, replacing, fingerprint, held);
          },
          'minting this guest token',
        )
        .finally(() => this.#inFlight.delete(flight));
      this.#inFlight.set(flight, pending);
    }
    return pending;
  }

  async #mint(
    caller: Caller,
    request: SupersetGuestTokenRequest,
    previous: GroupEntry | undefined,
    replacing: string | undefined,
    fingerprint: string,
    held: HeldEntry,
  ): Promise<GroupEntry> {
    const askedAt = this.#context.now();
    const servable = previous !== undefined && previous.token !== replacing && expiresAtOf(previous.token)! > askedAt;
    // As for Explo's vendor-minted embed tokens: a holder's renewal waits like a rotation; a view
    // while the stored token still works renews it ahead at the lowest priority; one without waits as a first token.
    const priority: CallPriority = replacing !== undefined ? 'rotation' : servable ? 'revalidation' : 'first-token';
    const ask = async () => {
      const session = await this.#login.current();
      try {
        return await this.#context.calls.call(caller.group.key, 'supersetGuestToken', priority, () => this.#client.guestToken(session, request));
      } catch (error) {
        if (!isSessionRejected(error)) throw error;
        // The access token expired early or the CSRF cookie is gone: sign in again, once.
        const renewed = await this.#login.replace(session);
        return await this.#context.calls.call(caller.group.key, 'supersetGuestToken', priority, () => this.#client.guestToken(renewed, request));
      }
    };
    let answer: { token: string; expiresAt: number } | undefined;
    try {
      answer = await ask();
    } catch (error) {
      if (!servable || !isVendorOutage(error)) throw error;
    }
    if (answer === undefined) {
      this.#context.logger.info('guest token not renewed at Superset now: serving the stored one, which has not expired');
      return previous!;
    }
    const exp = expiresAtOf(answer.token);
    if (!isUserGroupToken(answer.token) || exp === undefined || exp <= this.#context.now()) {
      throw new BffError('upstream_error', "the dashboard vendor's guest token answer is not a usable guest token (a JWT with an exp ahead)", {
        retryable: false,
      });
    }
    const entry: GroupEntry = {
      token: answer.token,
      firstSeenAt: askedAt,
      fingerprint,
      previousToken: previous?.token ?? null,
      environment: null,
      syncedAt: askedAt,
      lastRotatedAt: askedAt,
    };
    await held.write(entry, exp - askedAt);
    return entry;
  }
}
