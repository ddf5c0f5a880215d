import { DEFAULT_ROTATION_SPACING_MS } from '@embedded-dashboard/protocol';
import { monotonicNow } from './customer-token/store-health.js';
import { resolveEmbedTokenSettings, type EmbedTokenSettings } from './explo/embed-token/settings.js';
import { isDashboardId } from '@embedded-dashboard/protocol';
import type { BffOptions } from './options.js';
import type { TokenServiceSettings } from './customer-token/token-service.js';

/*
 * Configuration step 3 of 5 (resolved settings; ARCHITECTURE §2.1): the options checked (a `TypeError`
 * naming the option) with their defaults filled in. Step 4 (`runtime.ts`) wires the parts from them.
 */

/** What the origin rule (routes/origin-guard.ts) needs from the options. */
export interface OriginRule {
  /** Browser origins allowed besides the BFF's own (CORS with credentials). */
  allowedOrigins: readonly string[];
  /** The BFF's origin as browsers reach it, when the operator states it. */
  publicOrigin: string | undefined;
  /** Take the public origin from `Forwarded` / `X-Forwarded-Proto` / `X-Forwarded-Host`. */
  trustProxy: boolean;
}

/** The options checked once (caller mistakes throw `TypeError` naming the option), with defaults filled in. */
export interface BffSettings {
  now: () => number;
  /** Monotonic: the store's health and the lock protocol's bounds. */
  clock: () => number;
  /** The origin rule: `allowedOrigins`, `publicOrigin`, `trustProxy`. */
  origin: OriginRule;
  /** Redacted from every log line: the session secret, the embed key and the integrator's `secrets`. */
  secrets: string[];
  /** Prefix of every store key. */
  keyPrefix: string;
  bodyLimitBytes: number;
  /** `timings.dashboards`, checked; `undefined`: the vendor's list. */
  timingDashboards: ReadonlySet<string> | undefined;
  storeTimeoutMs: number;
  tokens: TokenServiceSettings;
  /** Embed-token mode, when `embedToken` is set. */
  embedToken: EmbedTokenSettings | undefined;
  /** The shortest lifetime of the tokens handed out (`tokenTtlSeconds`, the vendor's `tokenLifetimeSeconds`); `null`: they never expire, or it is not known. */
  tokenLifetimeMs: number | null;
  budget: { ratePerMinute: number; burst: number | undefined; maxWaitMs: number; key: string };
}

const positive = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new TypeError(`${name} must be a positive number`);
  return v;
};

const nonNegative = (name: string, value: number | undefined, fallback: number): number => {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v < 0) throw new TypeError(`${name} must be a non-negative number`);
  return v;
};

function checkOrigins(name: string, origins: readonly string[]): void {
  for (const origin of origins) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(origin);
    } catch {
      parsed = undefined;
    }
    if (parsed === undefined || (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.origin !== origin) {
      throw new TypeError(`${name}: "${origin}" is not an origin like https://app.example.com`);
    }
  }
}

/** `timings.dashboards` as a set, or `undefined` when not given. */
function timingDashboards(timings: BffOptions['timings']): ReadonlySet<string> | undefined {
  if (timings === undefined) return undefined;
  const dashboards = typeof timings === 'object' && timings !== null ? timings.dashboards : null;
  if (dashboards === undefined) return undefined;
  if (!Array.isArray(dashboards) || dashboards.length === 0 || !dashboards.every(isDashboardId)) {
    throw new TypeError('timings.dashboards must be a non-empty list of dashboard ids (1-128 of A-Z a-z 0-9 _ -)');
  }
  return new Set(dashboards);
}

export function resolveSettings(options: BffOptions): BffSettings {
  const vendor = options.vendor;
  if (vendor !== undefined && (typeof vendor !== 'object' || vendor === null || typeof vendor.create !== 'function')) {
    throw new TypeError('vendor must be a vendor such as supersetVendor({...}) from @embedded-dashboard/bff/superset');
  }
  if (vendor === undefined && options.upstream === undefined) throw new TypeError('upstream is required');
  if (vendor !== undefined && options.upstream !== undefined) throw new TypeError(`set upstream (Explo) or vendor (${vendor.name}), not both`);
  if (vendor !== undefined && options.embedToken !== undefined) throw new TypeError(`embedToken is Explo's; the ${vendor.name} vendor has its own options`);
  if (options.identify === undefined && options.session === undefined) throw new TypeError('set session or identify');
  const now = options.now ?? Date.now;
  const allowedOrigins = options.allowedOrigins ?? [];
  if (!Array.isArray(allowedOrigins)) throw new TypeError('allowedOrigins must be an array of origins');
  checkOrigins('allowedOrigins', allowedOrigins);
  if (options.publicOrigin !== undefined) checkOrigins('publicOrigin', [options.publicOrigin]);
  if (options.trustProxy !== undefined && typeof options.trustProxy !== 'boolean') throw new TypeError('trustProxy must be true or false');
  const sessionSecret = typeof options.session?.secret === 'string' ? [options.session.secret] : [];
  const embedKey = typeof options.embedToken?.key === 'string' ? [options.embedToken.key] : [];
  const account = vendor === undefined ? options.upstream!.accountId : vendor.accountId;
  if (account !== undefined && (typeof account !== 'string' || account === '' || account.length > 128)) {
    throw new TypeError(`${vendor === undefined ? 'upstream' : 'vendor'}.accountId must be a non-empty string of at most 128 characters`);
  }
  const vendorSecrets = (vendor?.secrets ?? []).filter((secret) => typeof secret === 'string' && secret !== '');
  const tokenTtlSeconds = nonNegative('tokenTtlSeconds', options.tokenTtlSeconds, 3600);
  const vendorLifetime = vendor?.tokenLifetimeSeconds;
  if (vendorLifetime !== undefined && !(typeof vendorLifetime === 'number' && vendorLifetime > 0 && Number.isFinite(vendorLifetime))) {
    throw new TypeError('vendor.tokenLifetimeSeconds must be a positive number of seconds');
  }
  const clock = options.clock ?? monotonicNow;
  return {
    now,
    clock,
    origin: { allowedOrigins, publicOrigin: options.publicOrigin, trustProxy: options.trustProxy ?? false },
    secrets: [...(options.secrets ?? []), ...sessionSecret, ...embedKey, ...vendorSecrets],
    // The account in the key keeps deployments of different vendor accounts sharing one store apart.
    keyPrefix: options.keyPrefix ?? `${options.expectEnvironment ?? 'any'}:${account === undefined ? '' : `${account}:`}`,
    bodyLimitBytes: nonNegative('bodyLimitBytes', options.bodyLimitBytes, 4096),
    timingDashboards: timingDashboards(options.timings),
    embedToken: options.embedToken === undefined ? undefined : resolveEmbedTokenSettings(options.embedToken, tokenTtlSeconds, options.upstream!),
    // Explo's customer and embed tokens both live `tokenTtlSeconds` (0: customer tokens never expire).
    tokenLifetimeMs: vendor === undefined ? (tokenTtlSeconds > 0 ? tokenTtlSeconds * 1000 : null) : vendorLifetime === undefined ? null : vendorLifetime * 1000,
    storeTimeoutMs: options.storeTimeoutMs ?? 1000,
    // One budget per vendor account, whatever the key prefix: it is the account the vendor limits.
    budget: {
      ratePerMinute: nonNegative('upstreamRatePerMinute', options.upstreamRatePerMinute, 0),
      burst: options.upstreamBurst === undefined ? undefined : nonNegative('upstreamBurst', options.upstreamBurst, 0),
      maxWaitMs: nonNegative('upstreamMaxWaitMs', options.upstreamMaxWaitMs, 3000),
      key: account ?? 'default',
    },
    tokens: {
      tokenTtlSeconds,
      revalidateAfterMs: nonNegative('revalidateAfterSeconds', options.revalidateAfterSeconds, 300) * 1000,
      entryTtlMs: Math.max(86_400_000, 2 * tokenTtlSeconds * 1000),
      minRotationIntervalMs: nonNegative('minRotationIntervalSeconds', options.minRotationIntervalSeconds, DEFAULT_ROTATION_SPACING_MS / 1000) * 1000,
      lockTtlMs: positive('lockTtlMs', options.lockTtlMs, 6_000),
      lockWaitMs: nonNegative('lockWaitMs', options.lockWaitMs, 5_000),
      pollIntervalMs: 25,
      expectEnvironment: options.expectEnvironment,
      circuitBreaker: options.circuitBreaker ?? {},
      account,
      now,
      clock,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    },
  };
}
