import { createCallerOf, type CallerOf } from './caller/caller.js';
import { createUpstreamBudget } from './vendor-budget/upstream-budget.js';
import { EmbedTokens } from './explo/embed-token/embed-tokens.js';
import { localMinter, type EmbedTokenMinter } from './explo/embed-token/local-minter.js';
import type { EmbedTokenSettings } from './explo/embed-token/settings.js';
import { VendorMinter } from './explo/embed-token/vendor-minter.js';
import { createJsonLogger, withRedaction, type BffLogger } from './observability/logger.js';
import { defaultMetrics } from '#bff-platform';
import type { BffMetrics } from './observability/metrics.js';
import { RefusalLog } from './observability/refusal-log.js';
import type { BffOptions } from './options.js';
import { createRateLimiter, type RateLimiter } from './session-rate-limit/rate-limiter.js';
import { resolveSettings, type OriginRule } from './settings.js';
import { createMemoryStore } from './store/memory.js';
import { GuardedStore } from './customer-token/guarded-store.js';
import { TokenService } from './customer-token/token-service.js';
import { GroupEntries } from './customer-token/group-entries.js';
import { VendorCalls } from './customer-token/vendor-calls.js';
import { exploAdapter } from './explo/explo-adapter.js';
import type { VendorAdapter } from './vendor/vendor-adapter.js';

/*
 * Configuration step 4 of 5 (the wired runtime; ARCHITECTURE §2.1): every part the routes share,
 * built once from the resolved settings, with no logic of its own. Step 5 (`app.ts`) serves it.
 */

/** Everything the routes share, built once from the options. */
export interface BffRuntime {
  callerOf: CallerOf;
  rateLimit: RateLimiter;
  /** The vendor's adapter: what the token routes answer. */
  vendor: VendorAdapter;
  /** Explo's token service (user groups), when the vendor is Explo (no `vendor` option). */
  service: TokenService | undefined;
  store: GuardedStore;
  logger: BffLogger;
  metrics: BffMetrics;
  /** Counts and summarises the requests refused on purpose. */
  refusals: RefusalLog;
  bodyLimitBytes: number;
  /** The dashboards timings reports may name (`timings.dashboards`, else the vendor's list); `undefined`: none may. */
  timingDashboards: ReadonlySet<string> | undefined;
  /** The origin rule the token routes apply. */
  origin: OriginRule;
}

/** Checks the options and wires the parts; each part is built by its own module. */
export function createBffRuntime(options: BffOptions): BffRuntime {
  const settings = resolveSettings(options);
  // The default logger redacts whole lines itself; a logger of the integrator's gets fields redacted first.
  const logger =
    options.logger === undefined ? createJsonLogger({ secrets: settings.secrets, level: options.logLevel }) : withRedaction(options.logger, settings.secrets);
  const metrics = options.metrics ?? defaultMetrics();
  const store = new GuardedStore(options.store ?? createMemoryStore(), logger, metrics, settings.storeTimeoutMs, settings.now, settings.clock);
  const budget = createUpstreamBudget({ ...settings.budget, store, metrics, sleep: settings.tokens.sleep });
  let service: TokenService | undefined;
  let vendor: VendorAdapter;
  if (options.vendor === undefined) {
    service = new TokenService(options.upstream!, store, logger, metrics, settings.tokens, budget);
    const embedTokens =
      settings.embedToken && new EmbedTokens(settings.embedToken, service, embedTokenMinter(settings.embedToken, options, service, logger, settings.tokens));
    vendor = exploAdapter(service, embedTokens);
  } else {
    vendor = options.vendor.create({
      store,
      entries: new GroupEntries(store, settings.tokens),
      calls: new VendorCalls(settings.tokens.circuitBreaker, budget, settings.now, logger, metrics, options.vendor.name),
      logger,
      metrics,
      keyPrefix: settings.keyPrefix,
      now: settings.now,
      minRotationIntervalMs: settings.tokens.minRotationIntervalMs,
    });
  }
  return {
    callerOf: createCallerOf({
      identify: options.identify,
      session: options.session,
      keyPrefix: settings.keyPrefix,
      now: settings.now,
      logger,
      toGroup: options.vendor?.toGroup,
    }),
    rateLimit: createRateLimiter(options.rateLimit, store, settings.tokenLifetimeMs),
    vendor,
    service,
    store,
    logger,
    metrics,
    refusals: new RefusalLog(logger, metrics, settings.now),
    bodyLimitBytes: settings.bodyLimitBytes,
    timingDashboards: settings.timingDashboards ?? vendor.dashboards,
    origin: settings.origin,
  };
}

/** Where embed tokens come from: this process (`mint: 'local'`), or the vendor through the token service's calls and store. */
function embedTokenMinter(
  embedToken: EmbedTokenSettings,
  options: BffOptions,
  service: TokenService,
  logger: BffLogger,
  tokens: { minRotationIntervalMs: number; now: () => number },
): EmbedTokenMinter {
  if (embedToken.mint === 'local') return localMinter(embedToken, tokens.now);
  const upstream = options.upstream!;
  return new VendorMinter((input) => upstream.generateJwt!(input), service.entries, service.calls, logger, {
    keyId: embedToken.keyId,
    ttlSeconds: embedToken.ttlSeconds,
    minRotationIntervalMs: tokens.minRotationIntervalMs,
    now: tokens.now,
  });
}
