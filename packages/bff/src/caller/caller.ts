import type { Context } from 'hono';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import { assertGroupInput } from '../session/claims.js';
import type { EmbedIdentity, IdentifyFunction } from '../session/identity.js';
import { createSessionVerifier, type ClaimsToGroup, type SessionOptions } from '../session/session-verifier.js';
import { MAX_ISSUED_AT_SKEW_MS } from '../customer-token/drift-policy.js';
import { groupFingerprint } from '../customer-token/fingerprint.js';
import type { ResolvedGroup } from '../customer-token/resolved-group.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';

/** The token routes, each with its own per-session limit (`session-rate-limit/`). */
export type TokenRoute = 'token' | 'rotate';
/** The routes with a per-session limit: the token routes and the timings reports. */
export type LimitedRoute = TokenRoute | 'timings';

/** The caller of a token route, as the routes use it. */
export interface Caller {
  group: ResolvedGroup;
  sessionKey: string;
  /** Store keys of the caller's rate-limit counters, by route. */
  limitKeys: Record<LimitedRoute, string>;
  /** The verified session's claims (or the hook's), for a vendor's templates over them; `{}` when there are none. */
  claims: Readonly<Record<string, unknown>>;
}

/** Finds the caller of a request: at once for a session already verified, else a promise. */
export type CallerOf = (c: Context) => MaybePromise<Caller>;

export interface CallerSettings {
  /** The integrator's own hook; replaces session verification. */
  identify: IdentifyFunction | undefined;
  /** Session verification, used when there is no hook. */
  session: SessionOptions | undefined;
  /** Prefix of the caller's store keys (group entry and rate-limit counters). */
  keyPrefix: string;
  now: () => number;
  /** Told when session keys cannot be fetched. */
  logger: BffLogger;
  /** The vendor's reading of a session's claims as its group; default Explo's. */
  toGroup?: ClaimsToGroup;
}

/**
 * An `identify()` answer's issue time in epoch ms: now when it has none (the hook reads live
 * data). One from the future (milliseconds instead of seconds, most likely) is the integrator's
 * bug (500): it would outrank every later answer.
 */
function hookIssuedAtMs(issuedAt: unknown, nowMs: number): number {
  if (issuedAt === undefined) return nowMs;
  const problem =
    typeof issuedAt !== 'number' || !Number.isFinite(issuedAt) || issuedAt < 0
      ? 'that is not epoch seconds'
      : issuedAt * 1000 > nowMs + MAX_ISSUED_AT_SKEW_MS
        ? `${Math.round(issuedAt - nowMs / 1000)} s in the future (epoch seconds expected)`
        : undefined;
  if (problem !== undefined) throw new BffError('internal', 'internal error', { cause: new TypeError(`identify() returned an issuedAt ${problem}`) });
  return (issuedAt as number) * 1000;
}

/**
 * Turns a request's session (or the `identify` hook's answer) into a `Caller`: its group with
 * store key, fingerprint and session issue time, and its rate-limit counter keys. A verified
 * session's identity is immutable and cached by the verifier, so its caller is built once and
 * remembered by object. A hook's answer is validated and fingerprinted on every request: a hook
 * may hand back the same object with new contents, and a cached fingerprint would hide that drift.
 */
const NO_CLAIMS: Readonly<Record<string, unknown>> = Object.freeze({});

export function createCallerOf({ identify: hook, session, keyPrefix, now, logger, toGroup }: CallerSettings): CallerOf {
  const build = (identity: EmbedIdentity): Caller => {
    const { group } = identity;
    if (hook !== undefined) assertGroupInput(group);
    const sessionKey = identity.sessionKey ?? group.user_group_id;
    return {
      group: {
        group,
        key: keyPrefix + group.user_group_id,
        fingerprint: groupFingerprint(group),
        issuedAtMs: hook === undefined ? (identity.issuedAt as number) * 1000 : hookIssuedAtMs(identity.issuedAt, now()),
      },
      sessionKey,
      limitKeys: {
        token: `rl:token:${keyPrefix}${sessionKey}`,
        rotate: `rl:rotate:${keyPrefix}${sessionKey}`,
        timings: `rl:timings:${keyPrefix}${sessionKey}`,
      },
      claims: typeof identity.claims === 'object' && identity.claims !== null ? identity.claims : NO_CLAIMS,
    };
  };
  const signedIn = (identity: EmbedIdentity | null): EmbedIdentity => {
    if (identity === null) throw new BffError('unauthenticated', 'not signed in');
    return identity;
  };

  const callers = new WeakMap<EmbedIdentity, Caller>();
  const toCaller = (identity: EmbedIdentity | null): Caller => {
    const known = signedIn(identity);
    let caller = callers.get(known);
    if (caller === undefined) {
      caller = build(known);
      callers.set(known, caller);
    }
    return caller;
  };

  // A hook may be asynchronous (or return any thenable), so it is always awaited.
  if (hook !== undefined) return async (c) => build(signedIn(await hook(c)));
  const verifier = createSessionVerifier(session!, now, logger, toGroup);
  return (c) => andThen(verifier.identify(c), toCaller);
}
