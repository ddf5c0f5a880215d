import { sha256 } from '#bff-platform';
import { decodeJwt, SignJWT } from 'jose';
import {
  isUserGroupToken,
  MAX_USER_GROUP_TOKEN_CHARS,
  METABASE_EMBED_JWT,
  reuseMinLeftMs,
  type TokenRequest,
  type TokenResponse,
} from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import { rotationThrottle } from '../customer-token/rotation.js';
import { BffError } from '../errors/bff-error.js';
import { hotCounter } from '../observability/metrics.js';
import type { GroupEntry } from '../store/types.js';
import type { VendorContext } from '../vendor/vendor-adapter.js';
import { embedClaims, resourceOf } from './embed-claims.js';
import type { MetabaseSettings } from './options.js';

interface Planned {
  draft: ReturnType<typeof embedClaims>;
  fingerprint: string;
  key: string;
}

/** The token's own `exp` in epoch ms, when it is a JWT with one. */
function expiresAtOf(token: string): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Metabase guest-embed tokens, signed in this process with the embedding secret as Metabase's
 * documented examples sign them (`jwt.sign({ resource, params, exp }, METABASE_SECRET_KEY)`: HS256
 * over the key's text), so no request to Metabase is ever made. One token per customer, item and
 * rendered locked parameters, shared by the fleet through the store until shortly before its `exp`
 * (the frame URL, which holds the token, then stays the same across views and processes); a
 * session whose claims render other parameters gets a token of its own (their digest is in the
 * key). `expiresAt` is the token's `exp`.
 */
export class MetabaseGuestTokens {
  readonly #settings: MetabaseSettings;
  readonly #context: VendorContext;
  readonly #hit: { inc(): void };
  readonly #miss: { inc(): void };

  constructor(settings: MetabaseSettings, context: VendorContext) {
    this.#settings = settings;
    this.#context = context;
    this.#hit = hotCounter(context.metrics.cacheLookups, 'hit');
    this.#miss = hotCounter(context.metrics.cacheLookups, 'miss');
  }

  async token(caller: Caller, scope: TokenRequest): Promise<TokenResponse> {
    const planned = this.#plan(caller, scope);
    const stored = await this.#read(planned.key, planned.fingerprint);
    if (stored !== undefined && this.#reusable(stored)) {
      this.#hit.inc();
      return this.#respond(stored);
    }
    this.#miss.inc();
    return this.#respond(await this.#sign(planned, stored));
  }

  async renew(caller: Caller, scope: TokenRequest, presented: string): Promise<TokenResponse> {
    const planned = this.#plan(caller, scope);
    const stored = await this.#read(planned.key, planned.fingerprint);
    if (stored !== undefined && stored.token !== presented && this.#reusable(stored)) return this.#respond(stored);
    if (stored !== undefined && stored.token === presented) {
      const throttled = rotationThrottle(
        'this guest token was signed',
        stored.lastRotatedAt ?? 0,
        expiresAtOf(stored.token)! - stored.firstSeenAt,
        this.#context,
      );
      if (throttled) throw throttled;
    }
    return this.#respond(await this.#sign(planned, stored));
  }

  /** The item, the payload but for `exp` (rendered now: a bad claim is refused before anything is read), its store key. */
  #plan(caller: Caller, scope: TokenRequest): Planned {
    const resource = resourceOf(this.#settings, scope);
    const draft = embedClaims(this.#settings, caller, resource, 0);
    const fingerprint = `${resource.kind}:${resource.key} ${sha256(JSON.stringify([draft.resource, draft.params]), 'base64url').slice(0, 32)}`;
    // Item and digest hold no space; the customer's key (which may) goes last.
    return { draft, fingerprint, key: `metabase-guest:${fingerprint} ${caller.group.key}` };
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
    // The protocol's one reuse rule (renewal.ts), as for Explo's embed tokens and Superset's guest tokens.
    return leftMs > 0 && leftMs >= reuseMinLeftMs(lifetimeMs);
  }

  async #sign(planned: Planned, previous: GroupEntry | undefined): Promise<GroupEntry> {
    const now = this.#context.now();
    const exp = Math.floor(now / 1000) + this.#settings.ttlSeconds;
    const claims = { ...planned.draft, exp };
    const token = await new SignJWT({ ...claims }).setProtectedHeader({ alg: METABASE_EMBED_JWT.algorithm, typ: 'JWT' }).sign(this.#settings.key);
    // The element takes tokens of at most 4,096 characters (its URL too): long parameter values are the configuration's to shorten.
    const length = token.length;
    if (!isUserGroupToken(token)) {
      throw new BffError('internal', 'internal error', {
        cause: new Error(`the Metabase token is ${length} characters, over ${MAX_USER_GROUP_TOKEN_CHARS}: shorten the locked parameters`),
      });
    }
    const entry: GroupEntry = {
      token,
      firstSeenAt: now,
      fingerprint: planned.fingerprint,
      previousToken: previous?.token ?? null,
      environment: null,
      syncedAt: now,
      lastRotatedAt: now,
    };
    // A store that fails never fails the request (GuardedStore): the token is answered either way.
    await this.#context.entries.write(planned.key, entry, exp * 1000 - now);
    return entry;
  }
}
