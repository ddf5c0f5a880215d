import type { CircuitBreakerOptions } from './circuit-breaker/circuit-breaker.js';
import type { EmbedTokenOptions } from './explo/embed-token/options.js';
import type { Environment } from '@embedded-dashboard/protocol';
import type { BffLogger, LogLevel } from './observability/logger.js';
import type { BffMetrics } from './observability/metrics.js';
import type { RateLimitOptions } from './session-rate-limit/rate-limiter.js';
import type { IdentifyFunction } from './session/identity.js';
import type { SessionOptions } from './session/session-verifier.js';
import type { TokenStore } from './store/types.js';
import type { UserGroupUpstream } from './customer-token/upstream.js';
import type { BffVendor } from './vendor/vendor-adapter.js';

/*
 * Configuration step 2 of 5 (options; ARCHITECTURE §2.1): what the library is given, as types. Step 3
 * (`settings.ts`) checks them and fills in the defaults.
 */

/**
 * Options of `createEmbedRoutes` and `createBffApp`. Only `upstream` and one of `session` or
 * `identify` are required.
 */
export interface BffOptions {
  /**
   * Explo's API: a `UserGroupClient` from `@embedded-dashboard/client`, or any object of that
   * shape. Required unless `vendor` names another vendor.
   */
  upstream?: UserGroupUpstream;
  /**
   * Another vendor than Explo: `supersetVendor({...})` from `@embedded-dashboard/bff/superset`.
   * Default: Explo, from `upstream` (and `embedToken`).
   */
  vendor?: BffVendor;
  /** Session-JWT verification. Required unless `identify` is given. */
  session?: SessionOptions;
  /** Your own way to find the caller's group; replaces `session`. */
  identify?: IdentifyFunction;
  /** Where entries, locks and rate-limit counters live. Default: a new in-memory store. */
  store?: TokenStore;
  /**
   * Seconds from a token's first sighting until the browser should rotate it; 0 = never
   * (`expiresAt: null`). With `embedToken`, each embed token's lifetime (`exp`), above 0. Default 3600.
   */
  tokenTtlSeconds?: number;
  /**
   * Answer embed tokens (a JWE for the session's customer and the dashboard the request names,
   * the vendor's embed secrets) instead of the customer token, which then never leaves the BFF.
   * Default: off.
   */
  embedToken?: EmbedTokenOptions;
  /** A cached group is re-read from the vendor (get-or-create) once its entry is this old. Default 300. */
  revalidateAfterSeconds?: number;
  /**
   * At most one renewal of a token in this many seconds, and at most a quarter of its lifetime
   * (the protocol's `rotationSpacingMs`, which the element's schedule follows); inside it a
   * renewal of the current token is 429 with `Retry-After`. Default 10.
   */
  minRotationIntervalSeconds?: number;
  /** Browser origins allowed besides the BFF's own (exact `scheme://host[:port]`), answered with CORS. Default none: same origin only. */
  allowedOrigins?: string[];
  /**
   * The BFF's own origin as browsers reach it (`https://app.example.com`), when the request URL
   * the server hands over says something else (a TLS-terminating proxy, a framework that builds
   * the URL from its listen address). Browsers that say `Sec-Fetch-Site: same-origin` need no
   * setting; this covers those that send no Fetch Metadata (plain-HTTP hosts other than
   * localhost, older browsers), and a same-origin claim for another origin is then refused.
   * Default: unset (the proxy's headers with `trustProxy`, else the request URL).
   */
  publicOrigin?: string;
  /**
   * Take the BFF's public origin from `Forwarded` (`proto`, `host`) or `X-Forwarded-Proto` /
   * `X-Forwarded-Host`. Only for a proxy that sets these headers itself, replacing what clients
   * send; an ambiguous or malformed value counts as none. Default false.
   */
  trustProxy?: boolean;
  /**
   * The breaker around this vendor account's calls: after `failureThreshold` (5) consecutive
   * outage failures, answer 503 with `Retry-After` at once for `openSeconds` (5, doubling per
   * failed probe up to `maxOpenSeconds`, 60), then let one probe through. Cached tokens are still
   * served. `false` turns it off.
   */
  circuitBreaker?: CircuitBreakerOptions | false;
  /** Refuse to serve when the vendor says the groups belong to the other environment. Default: either. */
  expectEnvironment?: Environment;
  /**
   * Per-session limits; `false` disables them. Default token 60/min, rotate 12/min or, for short
   * token lifetimes, what 10 holders renewing on the protocol's schedule need (120/min at 15 s),
   * timings 60/min. A rule given is used as it is.
   */
  rateLimit?: RateLimitOptions;
  /**
   * The timings reports (`POST /timings`): `dashboards`, the dashboard ids they may name (the
   * metrics' only `dashboard` label values), where the vendor has no list of its own (Explo's
   * customer tokens, for every dashboard; CLI `EMBED_DASHBOARDS` without `EMBED_JWT_KEY_ID`).
   * Default: the vendor's list (`embedToken.dashboards`, Superset's `dashboards`); with none,
   * every report is refused (403).
   */
  timings?: TimingsOptions;
  /** Largest accepted request body in bytes (larger: 413). Default 4096. */
  bodyLimitBytes?: number;
  /** Default: JSON lines on stdout via `createJsonLogger`. Whatever logger, lines reach it redacted. */
  logger?: BffLogger;
  /** Level of the default logger (ignored with `logger`). Default `info`: a line per failed request; `debug` adds one per successful request. */
  logLevel?: LogLevel;
  /** Secrets redacted from every log line besides the session secret and the embed key (and anything JWT-shaped); pass your vendor API token here. */
  secrets?: string[];
  /** Default: new metrics on their own registry. */
  metrics?: BffMetrics;
  /** Prefix of every store key, so deployments sharing a store stay apart. Default `${expectEnvironment ?? 'any'}:`. */
  keyPrefix?: string;
  /** How long a store call may take before the BFF treats the store as down. Default 1000 ms. */
  storeTimeoutMs?: number;
  /**
   * Lifetime of the cross-process sync/rotation locks, renewed every third of it while their holder
   * works (stores whose locks can `extend`: memory, Redis): how long a process that died holding a
   * lock blocks its group. A store whose locks cannot be extended needs one longer than any
   * holder works (the vendor call's deadline and the budget's wait). Default 6000 ms.
   */
  lockTtlMs?: number;
  /**
   * How long a request waits for another process's sync or rotation of its group before it is
   * answered 503 with `Retry-After: 1` (it never calls the vendor for the group without the lock;
   * when the holder ends without a result, or its lock expires, the waiter takes over). Default 5000 ms.
   */
  lockWaitMs?: number;
  /**
   * The vendor budget: vendor calls per minute for this vendor account across every process
   * sharing `store` (atomic in Redis; per process in memory). Calls are admitted by priority:
   * a visitor waiting for a first token, then rotation of a dead token, then drift updates and
   * revalidation (deferred while the budget is tight; the cached token is served). A vendor 429
   * empties it for the 429's `Retry-After`. Every vendor call the service makes counts, so give
   * the upstream no retries of its own (`maxAttempts: 1`) for the vendor to never see more.
   * Default `0`: no budget (the CLI's `EMBED_UPSTREAM_RATE` defaults to 150).
   */
  upstreamRatePerMinute?: number;
  /**
   * Vendor calls the budget lets through at once after a quiet spell. Default: 10 seconds' worth
   * of `upstreamRatePerMinute` (25 at 150), so no 60-second window ever sees more than 70
   * seconds' worth: 175 at 150, under the vendor's 180 even if it counts a sliding window.
   */
  upstreamBurst?: number;
  /**
   * How long a visitor may wait for a budget slot; past it, `503 upstream_unavailable` with
   * `Retry-After`. Default 3000 ms (inside the BFF's request deadline, with time for the call).
   */
  upstreamMaxWaitMs?: number;
  /** Clock (epoch ms), for tests. Default `Date.now`. */
  now?: () => number;
  /** Monotonic clock (ms) for durations that an epoch clock's steps must not bend (the store's health, lock waits), for tests. Default `performance.now`. */
  clock?: () => number;
  /** Sleep used while polling for another process's result, for tests. */
  sleep?: (ms: number) => Promise<void>;
}

/** `createBffApp` options: the routes' options plus where they are mounted. */
export interface BffAppOptions extends BffOptions {
  /** Base path of the token routes. Default `/embed`. */
  basePath?: string;
  /**
   * Serve `GET /metrics` (Prometheus text) next to the token routes. Default false: metrics are
   * not for the public; serve `createMetricsApp(metrics)` on an internal listener instead.
   */
  exposeMetrics?: boolean;
}

/** The `timings` option of {@link BffOptions}. */
export interface TimingsOptions {
  /** The dashboards timings reports may name (1-128 of `A-Za-z0-9_-` each). */
  dashboards?: string[];
}
