import { renewalsPerWindow } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import type { LimitedRoute } from '../caller/caller.js';
import type { WindowCount } from '../store/types.js';
import type { GuardedStore } from '../customer-token/guarded-store.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/** At most `limit` requests per session in each fixed window of `windowSeconds`. */
export interface RateLimitRule {
  limit: number;
  windowSeconds: number;
}

/**
 * The `rateLimit` option: a rule per route (the token routes, the timings reports), `false` for
 * none; `false` alone turns them all off.
 */
export type RateLimitOptions = false | { token?: RateLimitRule | false; rotate?: RateLimitRule | false; timings?: RateLimitRule | false };

const DEFAULT_RATE_LIMITS: Record<LimitedRoute, RateLimitRule> = {
  token: { limit: 60, windowSeconds: 60 },
  // The least: `rotateRule` raises it to what the token lifetime needs.
  rotate: { limit: 12, windowSeconds: 60 },
  // A page's elements each report a load, then about one renewal a token lifetime.
  timings: { limit: 60, windowSeconds: 60 },
};

/**
 * How many holders of tokens (a tile of its own scope, in a tab of its own) one session's default
 * rotate limit makes room for, each renewing on the protocol's schedule: a page of 8 tiles of
 * different scopes, and room for retries and a second tab (DECISIONS).
 */
export const ROTATE_HOLDERS_PER_SESSION = 10;

/**
 * The rotate rule for tokens of `lifetimeMs` (`null`: they never expire): `least`'s window, and
 * its limit or, when more, `ROTATE_HOLDERS_PER_SESSION` holders renewing on the protocol's
 * schedule (`renewalsPerWindow`), so no renewal on the element's defaults is refused.
 *
 * @example
 * rotateRule(3_600_000); // { limit: 12, windowSeconds: 60 }: the least
 * rotateRule(15_000); // { limit: 120, windowSeconds: 60 }: 10 holders renewing a 15 s token
 */
export function rotateRule(lifetimeMs: number | null, least: RateLimitRule = DEFAULT_RATE_LIMITS.rotate): RateLimitRule {
  const needed = ROTATE_HOLDERS_PER_SESSION * renewalsPerWindow(lifetimeMs, least.windowSeconds * 1000);
  return { limit: Math.max(least.limit, needed), windowSeconds: least.windowSeconds };
}

/** Counts one request against its counter; throws the 429 when it is over. */
export type RateLimiter = (counterKey: string, route: LimitedRoute) => MaybePromise<void>;

/** The rule of each route from the `rateLimit` option: defaults (rotate's from the lifetime), or none where it says `false`. */
function rulesFrom(configured: RateLimitOptions | undefined, lifetimeMs: number | null): Record<LimitedRoute, RateLimitRule | undefined> {
  const rule = (route: LimitedRoute): RateLimitRule | undefined => {
    if (configured === false) return undefined;
    const given = configured?.[route];
    return given === false ? undefined : (given ?? (route === 'rotate' ? rotateRule(lifetimeMs) : DEFAULT_RATE_LIMITS[route]));
  };
  return { token: rule('token'), rotate: rule('rotate'), timings: rule('timings') };
}

/**
 * Per-session fixed-window limits of the token routes, counted in the store (so they hold across
 * every process sharing it). On a synchronous store the count is taken at once, without a promise.
 * `lifetimeMs`: the shortest lifetime of the tokens the BFF hands out (`null`: they never expire
 * or it is not known), from which the default rotate rule comes; a rule given is kept as it is.
 */
export function createRateLimiter(configured: RateLimitOptions | undefined, store: GuardedStore, lifetimeMs: number | null): RateLimiter {
  const rules = rulesFrom(configured, lifetimeMs);
  const check = (route: LimitedRoute, rule: RateLimitRule, { count, resetInMs }: WindowCount): void => {
    if (count > rule.limit) {
      throw new BffError('rate_limited', `too many ${route === 'timings' ? 'timings reports' : 'token requests'} for this session; retry later`, {
        retryAfterSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
        refusal: 'session_rate_limit',
      });
    }
  };
  return function rateLimit(counterKey, route) {
    const rule = rules[route];
    if (rule === undefined) return undefined;
    const counted = store.hit(counterKey, rule.windowSeconds * 1000);
    return counted instanceof Promise ? counted.then((window) => check(route, rule, window)) : check(route, rule, counted);
  };
}
