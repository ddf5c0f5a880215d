import { sha256 } from '#bff-platform';
import type { Context } from 'hono';
import { parse as parseCookies } from 'hono/utils/cookie';
import { errors, jwtVerify, type CryptoKey, type JWTVerifyGetKey } from 'jose';
import type { DataSourceMapping, UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import { createRemoteKeySet } from './remote-key-set.js';
import { LruMap } from '../util/lru-map.js';
import type { MaybePromise } from '../util/maybe-promise.js';
import { claimsToGroupInput, DEFAULT_CLAIM_NAMES, type ClaimNames } from './claims.js';
import type { EmbedIdentity } from './identity.js';
import { requestHeader } from '../http/request-header.js';
import { MAX_ISSUED_AT_SKEW_MS, WITHOUT_IAT_BEFORE_EXP_MS } from '../customer-token/drift-policy.js';

/** How sessions are read and verified. Exactly one of `secret`, `jwksUrl`, `getKey`. */
export interface SessionOptions {
  /** HS256 shared secret (at least 32 bytes). */
  secret?: string | Uint8Array;
  /**
   * URL of a JSON Web Key Set. Keys are cached for 10 minutes; a token with an unknown `kid`
   * makes one prompt refetch (at most one fetch a second, whatever asks). Any failure to get the
   * keys (no answer, an error status, a redirect, HTML) is 503 `upstream_unavailable` with
   * `Retry-After`, and failed fetches back off up to 30 s: never a 401.
   */
  jwksUrl?: string | URL;
  /** A key or key resolver of your own, e.g. `createLocalJWKSet(jwks)`. */
  getKey?: CryptoKey | JWTVerifyGetKey;
  /** Accepted `alg` values. Default `['HS256']` with `secret`, else `['RS256', 'PS256', 'ES256', 'EdDSA']`. */
  algorithms?: string[];
  /** Required `iss`. Unset: not checked. */
  issuer?: string | string[];
  /** Required `aud`. Unset: not checked. */
  audience?: string | string[];
  /** Cookie that holds the session JWT. Unset: `Authorization: Bearer <jwt>`. */
  cookie?: string;
  /** Allowed clock skew for `exp`/`nbf`, in seconds. Default 5. */
  clockToleranceSeconds?: number;
  /** Claim names of the group input. */
  claims?: ClaimNames;
  /**
   * Mapping used when the session has no mapping claim. Default: none, so the group's mapping is
   * not managed (the Customer API is sent no `mapping` and keeps the vendor's; `/api/user` is sent `{}`).
   */
  staticMapping?: DataSourceMapping;
  /** Verified sessions remembered (by exact token) until their `exp`. Default 10 000. */
  cacheSize?: number;
  /** Longer session tokens are refused unread. Default 8192 characters. */
  maxTokenLength?: number;
}

interface CachedSession {
  identity: EmbedIdentity;
  expiresAtMs: number;
}

const HMAC_ALGORITHMS = ['HS256'];
const ASYMMETRIC_ALGORITHMS = ['RS256', 'PS256', 'ES256', 'EdDSA'];
const BEARER = /^Bearer +([^\s]+) *$/i;

/**
 * What tells one session from another for the per-session rate limits: the user (`sub`), else
 * the login (`jti`), else the token itself, hashed so no key in the store is a usable session.
 * Computed once per verified session (sessions are cached).
 */
function sessionId(payload: Record<string, unknown>, token: string): string {
  if (typeof payload.sub === 'string' && payload.sub !== '') return `sub:${payload.sub.slice(0, 256)}`;
  if (typeof payload.jti === 'string' && payload.jti !== '') return `jti:${payload.jti.slice(0, 256)}`;
  return `jwt:${sha256(token, 'hex').slice(0, 32)}`;
}

const unauthenticated = (message: string, cause?: unknown) => new BffError('unauthenticated', message, { cause });

/** The `cause` of the 401 for a request without the session cookie: the routes tell a cross-site caller why (routes/error-handler.ts). */
export const NO_SESSION_COOKIE = 'no-session-cookie';

/**
 * When the session was issued, in epoch seconds, as the drift policy orders sessions: its `iat`;
 * without one, as if issued long before its `exp` (`WITHOUT_IAT_BEFORE_EXP_MS`). A session issued
 * more than `MAX_ISSUED_AT_SKEW_MS` after `nowMs` is refused: a skewed identity provider or an
 * `iat` in milliseconds, whose claims would otherwise outrank every correct session.
 */
function issuedAtOf(payload: Record<string, unknown>, nowMs: number): number {
  if (typeof payload.iat !== 'number') return (payload.exp as number) - WITHOUT_IAT_BEFORE_EXP_MS / 1000;
  const aheadMs = payload.iat * 1000 - nowMs;
  if (aheadMs > MAX_ISSUED_AT_SKEW_MS) {
    throw unauthenticated(
      `session "iat" is ${Math.round(aheadMs / 1000)} s in the future (beyond ${MAX_ISSUED_AT_SKEW_MS / 1000} s of clock skew; an iat in milliseconds?)`,
    );
  }
  return payload.iat;
}

function mapJoseError(error: unknown): BffError {
  if (error instanceof BffError) return error;
  if (error instanceof errors.JWTExpired) return unauthenticated('session expired', error);
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf') return unauthenticated('session is not valid yet', error);
    if (error.reason === 'missing') return unauthenticated(`session has no "${error.claim}" claim`, error);
    return unauthenticated(`session claim "${error.claim}" is not accepted`, error);
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) {
    return unauthenticated('session is signed with an algorithm this service does not accept', error);
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) return unauthenticated('session signature is invalid', error);
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) {
    return unauthenticated('session is signed with an unknown key', error);
  }
  if (!(error instanceof errors.JOSEError)) {
    return new BffError('upstream_unavailable', 'session keys could not be fetched', { cause: error, retryAfterSeconds: 1 });
  }
  return unauthenticated('session is malformed', error);
}

export interface SessionVerifier {
  /**
   * The caller's identity from its session, or a 401/403 `BffError`. A session already verified
   * and not expired is answered at once, without a promise (the hot path); any other is verified.
   */
  identify(c: Context): MaybePromise<EmbedIdentity>;
}

/**
 * Verifies session JWTs with jose and maps their claims to a group input. Verified sessions
 * are cached by their exact token string until `exp`, so a returning caller costs one map
 * lookup; failures are never cached.
 */
/** How a vendor makes the group input of a session from its claims (default: Explo's, `claimsToGroupInput`). */
export type ClaimsToGroup = (claims: Record<string, unknown>, names: Required<ClaimNames>, staticMapping: DataSourceMapping | undefined) => UserGroupInput;

export function createSessionVerifier(
  options: SessionOptions,
  now: () => number = Date.now,
  logger?: BffLogger,
  toGroup: ClaimsToGroup = claimsToGroupInput,
): SessionVerifier {
  const sources = [options.secret, options.jwksUrl, options.getKey].filter((s) => s !== undefined);
  if (sources.length !== 1) throw new TypeError('session: set exactly one of secret, jwksUrl, getKey');
  let key: Uint8Array | CryptoKey | JWTVerifyGetKey;
  if (options.secret !== undefined) {
    key = typeof options.secret === 'string' ? new TextEncoder().encode(options.secret) : options.secret;
    if (key.length < 32) throw new TypeError('session.secret must be at least 32 bytes');
  } else if (options.jwksUrl !== undefined) {
    key = createRemoteKeySet(new URL(options.jwksUrl), {
      now,
      onFetchFailed: (reason) => logger?.warn('session keys could not be fetched', { reason }),
    });
  } else {
    key = options.getKey!;
  }
  const algorithms = options.algorithms ?? (options.secret !== undefined ? HMAC_ALGORITHMS : ASYMMETRIC_ALGORITHMS);
  if (algorithms.length === 0 || algorithms.some((a) => a.toLowerCase() === 'none')) {
    throw new TypeError('session.algorithms must list real signature algorithms');
  }
  if (options.secret === undefined && algorithms.some((a) => a.startsWith('HS'))) {
    // An HMAC algorithm next to public keys lets a public key be used as an HMAC secret.
    throw new TypeError('session.algorithms may list HS* only with session.secret');
  }
  const names = { ...DEFAULT_CLAIM_NAMES, ...options.claims };
  const staticMapping = options.staticMapping;
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  const maxLength = options.maxTokenLength ?? 8192;
  const cookie = options.cookie;
  const cacheSize = options.cacheSize ?? 10_000;
  // Verified sessions by their exact token, and by the exact header that carried them: a
  // returning caller sends the same header, so the hot path is one lookup, no parsing.
  const cache = new LruMap<string, CachedSession>(cacheSize);
  const byHeader = new LruMap<string, CachedSession>(cacheSize);
  const headerName = cookie !== undefined ? 'cookie' : 'authorization';
  // A cookie header can carry far more than the session token; remembering only headers of about
  // the token's size keeps the cache's memory bounded by cacheSize × maxTokenLength.
  const maxCachedHeaderLength = maxLength + 512;
  const rememberHeader = (header: string | undefined, session: CachedSession) => {
    if (header !== undefined && header.length <= maxCachedHeaderLength) byHeader.set(header, session);
  };

  const readToken = (header: string | undefined): string => {
    let token: string | undefined;
    if (header === undefined) token = undefined;
    else if (cookie !== undefined) token = parseCookies(header, cookie)[cookie];
    else token = BEARER.exec(header)?.[1];
    if (token === undefined || token === '') {
      throw cookie !== undefined ? unauthenticated(`no session cookie "${cookie}"`, NO_SESSION_COOKIE) : unauthenticated('no Bearer session token');
    }
    if (token.length > maxLength) throw unauthenticated('session token is too long');
    return token;
  };

  const verify = async (token: string): Promise<CachedSession> => {
    let payload: Record<string, unknown>;
    try {
      // The overloads of jwtVerify differ by key kind; all three are handled at runtime.
      const result = await jwtVerify(token, key as Uint8Array, {
        algorithms,
        issuer: options.issuer,
        audience: options.audience,
        clockTolerance,
        requiredClaims: ['exp'],
        currentDate: new Date(now()),
      });
      payload = result.payload;
    } catch (error) {
      throw mapJoseError(error);
    }
    const issuedAt = issuedAtOf(payload, now());
    const group = toGroup(payload, names, staticMapping);
    return {
      identity: {
        group,
        sessionKey: `${group.user_group_id}\u0000${sessionId(payload, token)}`,
        issuedAt,
        claims: Object.freeze(payload),
      },
      expiresAtMs: (payload.exp as number) * 1000,
    };
  };

  const live = (map: LruMap<string, CachedSession>, key: string): CachedSession | undefined => {
    const hit = map.get(key);
    if (hit === undefined) return undefined;
    if (hit.expiresAtMs > now()) return hit;
    map.delete(key);
    return undefined;
  };
  /** The cached session of this exact header, else of the token it carries (then remembered by header too). */
  const cached = (header: string | undefined): { token: string; session: CachedSession | undefined } | CachedSession => {
    const byHeaderHit = header === undefined ? undefined : live(byHeader, header);
    if (byHeaderHit !== undefined) return byHeaderHit;
    const token = readToken(header);
    const session = live(cache, token);
    if (session !== undefined) rememberHeader(header, session);
    return { token, session };
  };

  const verifyAndRemember = async (token: string, header: string | undefined): Promise<EmbedIdentity> => {
    const session = await verify(token);
    cache.set(token, session);
    rememberHeader(header, session);
    return session.identity;
  };

  return {
    identify(c) {
      const header = requestHeader(c, headerName);
      const found = cached(header);
      if ('identity' in found) return found.identity;
      if (found.session !== undefined) return found.session.identity;
      return verifyAndRemember(found.token, header);
    },
  };
}
