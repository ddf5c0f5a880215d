import { UserGroupClient, type UserGroupClientOptions } from '@embedded-dashboard/client';
import { metabaseVendorOf } from '../metabase/config.js';
import { supersetVendorOf } from '../superset/config.js';
import { supersetTokenLifetimeSeconds } from '../superset/options.js';
import { rotateRule } from '../session-rate-limit/rate-limiter.js';
import type { BffVendor } from '../vendor/vendor-adapter.js';
import type { BffAppOptions } from '../options.js';
import type { BffConfig } from './bff-config.js';

/*
 * Configuration step 1 of 5, its end (ARCHITECTURE §2.1): a validated `BffConfig` made into the
 * options of step 2, the vendor client's and the app's (`BffAppOptions`).
 */

/**
 * The vendor client's options for a configuration. With a vendor budget every vendor request
 * must pass through it: the client makes one attempt per call, and the element's retry (a new
 * request, admitted by the budget again) replaces its own.
 */
export function clientOptions(config: BffConfig): UserGroupClientOptions {
  return {
    baseUrl: config.upstreamUrl,
    apiToken: config.apiToken,
    api: config.upstreamApi,
    ...(config.upstreamRatePerMinute > 0 ? { maxAttempts: 1 } : {}),
  };
}

/** The secrets of a configuration, for the logger's redaction. */
export const configSecrets = (config: BffConfig): string[] => {
  const mint = config.superset?.mint;
  const superset = mint === undefined ? [] : mint.kind === 'vendor' ? [mint.password] : [mint.secret];
  return [config.apiToken, config.session.secret, config.embedToken?.key, ...superset, config.metabase?.secret].filter(
    (s): s is string => typeof s === 'string' && s !== '',
  );
};

/**
 * The vendor part of `createBffApp`'s options for a configuration: Explo's `upstream` (a
 * `UserGroupClient`, `exploClient` its options' last word: a runtime's `maxInFlight`), or
 * another vendor's `vendor`, each with a client made for it.
 */
export function vendorOptions(
  config: BffConfig,
  exploClient: Partial<UserGroupClientOptions> = {},
): { upstream: UserGroupClient; vendor?: undefined } | { vendor: BffVendor; upstream?: undefined } {
  if (config.superset !== undefined) return { vendor: supersetVendorOf(config.superset, config.upstreamUrl) };
  if (config.metabase !== undefined) return { vendor: metabaseVendorOf(config.metabase) };
  return { upstream: new UserGroupClient({ ...clientOptions(config), ...exploClient }) };
}

/**
 * The shortest lifetime (s) of the tokens a configuration's BFF hands out, as its vendor states
 * it (`BffVendor.tokenLifetimeSeconds`); `null`: Explo's customer tokens that never expire.
 */
function tokenLifetimeSeconds(config: BffConfig): number | null {
  if (config.superset !== undefined) return supersetTokenLifetimeSeconds(config.superset.mint);
  if (config.metabase !== undefined) return config.metabase.ttlSeconds;
  return config.tokenTtlSeconds > 0 ? config.tokenTtlSeconds : null;
}

/**
 * `createBffApp`'s options for a configuration, but the parts each runtime brings itself: the
 * vendor client (its transport), the store and the metrics. `EMBED_RATE_LIMIT` gives `/token`
 * its limit and `/rotate` a fifth of it, or what the token lifetime needs when more (`rotateRule`).
 */
export function appOptions(config: BffConfig, extraSecrets: readonly string[] = []): Omit<BffAppOptions, 'upstream' | 'store' | 'metrics'> {
  const perMinute = config.rateLimitPerMinute;
  const lifetime = tokenLifetimeSeconds(config);
  return {
    session: config.session,
    logLevel: config.logLevel,
    secrets: [...configSecrets(config), ...extraSecrets],
    tokenTtlSeconds: config.tokenTtlSeconds,
    revalidateAfterSeconds: config.revalidateAfterSeconds,
    allowedOrigins: config.allowedOrigins,
    publicOrigin: config.publicOrigin,
    trustProxy: config.trustProxy,
    expectEnvironment: config.expectEnvironment,
    keyPrefix: config.keyPrefix,
    upstreamRatePerMinute: config.upstreamRatePerMinute,
    upstreamBurst: config.upstreamBurst,
    ...(config.embedToken !== undefined && { embedToken: config.embedToken }),
    ...(config.timingDashboards !== undefined && { timings: { dashboards: config.timingDashboards } }),
    rateLimit:
      perMinute === 0
        ? false
        : {
            token: { limit: perMinute, windowSeconds: 60 },
            rotate: rotateRule(lifetime === null ? null : lifetime * 1000, { limit: Math.max(1, Math.ceil(perMinute / 5)), windowSeconds: 60 }),
            // As many reports as token requests: each load or renewal follows one.
            timings: { limit: perMinute, windowSeconds: 60 },
          },
  };
}
