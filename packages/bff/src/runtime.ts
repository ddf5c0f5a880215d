import type { Context } from 'hono';
import type { UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from './errors/bff-error.js';
import { createJsonLogger, withRedaction, type BffLogger } from './observability/logger.js';
import { createBffMetrics, type BffMetrics } from './observability/metrics.js';
import type { BffOptions, RateLimitRule } from './options.js';
import { assertGroupInput } from './session/claims.js';
import type { EmbedIdentity } from './session/identity.js';
import { createSessionVerifier } from './session/session-verifier.js';
import { createMemoryStore } from './store/memory.js';
import type { WindowCount } from './store/types.js';
import { groupFingerprint } from './tokens/fingerprint.js';
import { GuardedStore } from './tokens/guarded-store.js';
import { TokenService, type ResolvedGroup } from './tokens/token-service.js';

/** The caller of a token route, as the routes use it. */
export interface Caller {
  group: ResolvedGroup;
  sessionKey: string;
  /** Store keys of the caller's rate-limit counters, by route. */
  limitKeys: Record<TokenRoute, string>;
}

export type TokenRoute = 'token' | 'rotate';

/** Everything the routes share, built once from the options. */
export interface BffRuntime {
  service: TokenService;
  store: GuardedStore;
  logger: BffLogger;
  metrics: BffMetrics;
  bodyLimitBytes: number;
  allowedOrigins: readonly string[];
  identify(c: Context): Promise<Caller>;
  /** The hot path of `identify`: a caller whose session is cached, else `undefined`. */
  identifyNow(c: Context): Caller | undefined;
  limit(caller: Caller, route: TokenRoute): Promise<void>;
  /** The hot path of `limit`: `true` when counted (or no limit) at once, `false` when `limit` must run. */
  limitNow(caller: Caller, route: TokenRoute): boolean;
}

const DEFAULT_RATE_LIMITS: Record<TokenRoute, RateLimitRule> = {
  token: { limit: 60, windowSeconds: 60 },
  rotate: { limit: 12, windowSeconds: 60 },
};

const nonNegative = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new TypeError(`${name} must be a non-negative number`);
  return v;
};

function checkOrigins(origins: readonly string[]): void {
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.origin !== origin) {
      throw new TypeError(`allowedOrigins: "${origin}" is not an origin like https://app.example.com`);
    }
  }
}

/** Validates the options (caller mistakes throw `TypeError` naming the option) and wires the parts. */
export function createBffRuntime(options: BffOptions): BffRuntime {
  if (options.upstream === undefined) throw new TypeError('upstream is required');
  if (options.identify === undefined && options.session === undefined) throw new TypeError('set session or identify');
  const now = options.now ?? Date.now;
  const allowedOrigins = options.allowedOrigins ?? [];
  checkOrigins(allowedOrigins);
  const sessionSecret = typeof options.session?.secret === 'string' ? [options.session.secret] : [];
  const secrets = [...(options.secrets ?? []), ...sessionSecret];
  // The default logger redacts whole lines itself; a logger of the integrator's gets fields redacted first.
  const logger = options.logger === undefined ? createJsonLogger({ secrets, level: options.logLevel }) : withRedaction(options.logger, secrets);
  const metrics = options.metrics ?? createBffMetrics();
  const store = new GuardedStore(options.store ?? createMemoryStore(), logger, metrics, options.storeTimeoutMs ?? 1000, now);
  const account = options.upstream.accountId;
  if (account !== undefined && (typeof account !== 'string' || account === '' || account.length > 128)) {
    throw new TypeError('upstream.accountId must be a non-empty string of at most 128 characters');
  }
  // The account in the key keeps deployments of different vendor accounts sharing one store apart.
  const keyPrefix = options.keyPrefix ?? `${options.expectEnvironment ?? 'any'}:${account === undefined ? '' : `${account}:`}`;
  const service = new TokenService(options.upstream, store, logger, metrics, {
    tokenTtlSeconds: nonNegative('tokenTtlSeconds', options.tokenTtlSeconds, 3600),
    revalidateAfterMs: nonNegative('revalidateAfterSeconds', options.revalidateAfterSeconds, 300) * 1000,
    entryTtlMs: Math.max(86_400_000, 2 * nonNegative('tokenTtlSeconds', options.tokenTtlSeconds, 3600) * 1000),
    minRotationIntervalMs: nonNegative('minRotationIntervalSeconds', options.minRotationIntervalSeconds, 10) * 1000,
    lockTtlMs: nonNegative('lockTtlMs', options.lockTtlMs, 30_000),
    lockWaitMs: nonNegative('lockWaitMs', options.lockWaitMs, 5_000),
    pollIntervalMs: 25,
    expectEnvironment: options.expectEnvironment,
    account,
    now,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  });

  // Keyed by the group object: a cached session (or an identify hook returning the same object)
  // is validated and fingerprinted once, not on every request.
  const resolved = new WeakMap<UserGroupInput, ResolvedGroup>();
  const resolve = (group: UserGroupInput, validate: boolean): ResolvedGroup => {
    let r = resolved.get(group);
    if (r === undefined) {
      if (validate) assertGroupInput(group);
      r = { group, key: keyPrefix + group.user_group_id, fingerprint: groupFingerprint(group) };
      resolved.set(group, r);
    }
    return r;
  };

  // Keyed by the identity object: a cached session is turned into a caller once.
  const callers = new WeakMap<EmbedIdentity, Caller>();
  const toCaller = (identity: EmbedIdentity, validate: boolean): Caller => {
    let caller = callers.get(identity);
    if (caller === undefined) {
      const sessionKey = identity.sessionKey ?? identity.group.user_group_id;
      caller = {
        group: resolve(identity.group, validate),
        sessionKey,
        limitKeys: { token: `rl:token:${keyPrefix}${sessionKey}`, rotate: `rl:rotate:${keyPrefix}${sessionKey}` },
      };
      callers.set(identity, caller);
    }
    return caller;
  };

  const hook = options.identify;
  const verifier = hook === undefined ? createSessionVerifier(options.session!, now) : undefined;
  const identify = async (c: Context): Promise<Caller> => {
    const identity = hook !== undefined ? await hook(c) : await verifier!.identify(c);
    if (identity === null) throw new BffError('unauthenticated', 'not signed in');
    return toCaller(identity, hook !== undefined);
  };
  // An identify hook may be asynchronous, so only verified sessions have a hot path.
  const identifyNow = (c: Context): Caller | undefined => {
    const identity = verifier?.identifyNow(c);
    return identity === undefined ? undefined : toCaller(identity, false);
  };

  const configured = options.rateLimit;
  const rules: Record<TokenRoute, RateLimitRule | undefined> = {
    token: configured === false ? undefined : configured?.token === false ? undefined : (configured?.token ?? DEFAULT_RATE_LIMITS.token),
    rotate: configured === false ? undefined : configured?.rotate === false ? undefined : (configured?.rotate ?? DEFAULT_RATE_LIMITS.rotate),
  };
  const check = (rule: RateLimitRule, { count, resetInMs }: WindowCount): void => {
    if (count > rule.limit) {
      throw new BffError('rate_limited', 'too many token requests for this session; retry later', {
        retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
      });
    }
  };
  const limit = async (caller: Caller, route: TokenRoute): Promise<void> => {
    const rule = rules[route];
    if (rule !== undefined) check(rule, await store.hit(caller.limitKeys[route], rule.windowSeconds * 1000));
  };
  const limitNow = (caller: Caller, route: TokenRoute): boolean => {
    const rule = rules[route];
    if (rule === undefined) return true;
    if (store.memory === undefined) return false;
    check(rule, store.memory.hitNow(caller.limitKeys[route], rule.windowSeconds * 1000));
    return true;
  };

  return {
    service,
    store,
    logger,
    metrics,
    bodyLimitBytes: nonNegative('bodyLimitBytes', options.bodyLimitBytes, 4096),
    allowedOrigins,
    identify,
    identifyNow,
    limit,
    limitNow,
  };
}
