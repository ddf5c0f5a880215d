import * as platform from '#bff-platform';
import type { Platform } from './platform/types.js';

export { createBffApp } from './app.js';
export { createEmbedRoutes } from './routes/embed-routes.js';
export { createMetricsApp } from './routes/metrics-routes.js';
export { BffError } from './errors/bff-error.js';
export { renderInitialToken, INITIAL_TOKEN_HEADERS } from './page/initial-token.js';
export { renderDashboardFrame } from './page/dashboard-frame.js';
export type { DashboardFrameOptions } from './page/dashboard-frame.js';
export { renderElementScript, TRUSTED_TYPES_POLICY } from './page/element-script.js';
export type { ElementScriptOptions } from './page/element-script.js';
export { createMemoryStore, MemoryTokenStore } from './store/memory.js';
export { createJsonLogger, redactLine, withRedaction } from './observability/logger.js';
export { DEFAULT_CLAIM_NAMES } from './session/claims.js';
export { groupFingerprint } from './customer-token/fingerprint.js';

export type { BffOptions, BffAppOptions } from './options.js';
export type { RateLimitRule } from './session-rate-limit/rate-limiter.js';
export type { EmbedTokenOptions } from './embed-token/options.js';
export type { BffNodeListenerOptions, NodeRequestListener } from './http/node-listener.js';
export type { BffErrorOptions } from './errors/bff-error.js';
export type { InitialToken, InitialTokenOptions, PageRequest, FetchHandler } from './page/initial-token.js';
export type { TokenStore, GroupEntry, LockHandle, WindowCount } from './store/types.js';
export type { MemoryStoreOptions } from './store/memory.js';
export type { BffLogger, LogFields, LogLevel, JsonLoggerOptions } from './observability/logger.js';
export type { BffMetrics, BffMetricsOptions } from './observability/metrics.js';
export type { SessionOptions } from './session/session-verifier.js';
export type { ClaimNames } from './session/claims.js';
export type { EmbedIdentity, IdentifyFunction } from './session/identity.js';
export type { UserGroupUpstream, UpstreamCallOptions } from './customer-token/upstream.js';
export type { BffVendor, VendorAdapter, VendorContext } from './vendor/vendor-adapter.js';

/**
 * A Node `(req, res)` listener for the BFF app (`@hono/node-server`), answering its own refusals
 * like the BFF does. Node (and Bun, Deno) only: elsewhere hand `app.fetch` to the runtime.
 */
export const createBffNodeListener: Platform['createBffNodeListener'] = platform.createBffNodeListener;
/**
 * The BFF's Prometheus metrics (prom-client) on a registry of their own. Node (and Bun, Deno)
 * only: on Workers and the Next.js edge runtime the BFF keeps no metrics by default.
 */
export const createBffMetrics: Platform['createBffMetrics'] = platform.createBffMetrics;
