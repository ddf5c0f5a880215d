import type { Context } from 'hono';
import type { UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import type { TokenRoute } from '../rate-limit/rate-limiter.js';
import { assertGroupInput } from '../session/claims.js';
import type { EmbedIdentity, IdentifyFunction } from '../session/identity.js';
import { createSessionVerifier, type SessionOptions } from '../session/session-verifier.js';
import { groupFingerprint } from '../tokens/fingerprint.js';
import type { ResolvedGroup } from '../tokens/token-service.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';

/** The caller of a token route, as the routes use it. */
export interface Caller {
  group: ResolvedGroup;
  sessionKey: string;
  /** Store keys of the caller's rate-limit counters, by route. */
  limitKeys: Record<TokenRoute, string>;
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
}

/**
 * Turns a request's session (or the `identify` hook's answer) into a `Caller`: its group with
 * store key and fingerprint, and its rate-limit counter keys. The group of a verified session was
 * validated by the verifier; a hook's group is validated here. Both are cached by object, so a
 * cached session (or a hook returning the same objects) becomes a caller once, not per request.
 */
export function createCallerOf({ identify: hook, session, keyPrefix, now, logger }: CallerSettings): CallerOf {
  const validate = hook !== undefined;
  const resolved = new WeakMap<UserGroupInput, ResolvedGroup>();
  const resolve = (group: UserGroupInput): ResolvedGroup => {
    let r = resolved.get(group);
    if (r === undefined) {
      if (validate) assertGroupInput(group);
      r = { group, key: keyPrefix + group.user_group_id, fingerprint: groupFingerprint(group) };
      resolved.set(group, r);
    }
    return r;
  };

  const callers = new WeakMap<EmbedIdentity, Caller>();
  const toCaller = (identity: EmbedIdentity | null): Caller => {
    if (identity === null) throw new BffError('unauthenticated', 'not signed in');
    let caller = callers.get(identity);
    if (caller === undefined) {
      const sessionKey = identity.sessionKey ?? identity.group.user_group_id;
      caller = {
        group: resolve(identity.group),
        sessionKey,
        limitKeys: { token: `rl:token:${keyPrefix}${sessionKey}`, rotate: `rl:rotate:${keyPrefix}${sessionKey}` },
      };
      callers.set(identity, caller);
    }
    return caller;
  };

  // A hook may be asynchronous (or return any thenable), so it is always awaited.
  if (hook !== undefined) return async (c) => toCaller(await hook(c));
  const verifier = createSessionVerifier(session!, now, logger);
  return (c) => andThen(verifier.identify(c), toCaller);
}
