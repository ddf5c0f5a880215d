export { createBffApp } from './app.js';
export { createEmbedRoutes } from './routes/embed-routes.js';
export { BffError } from './errors/bff-error.js';
export { createMemoryStore, MemoryTokenStore } from './store/memory.js';
export { createJsonLogger, redactLine, withRedaction } from './observability/logger.js';
export { createBffMetrics } from './observability/metrics.js';
export { DEFAULT_CLAIM_NAMES } from './session/claims.js';
export { groupFingerprint } from './tokens/fingerprint.js';

export type { BffOptions, BffAppOptions, RateLimitRule } from './options.js';
export type { BffErrorOptions } from './errors/bff-error.js';
export type { TokenStore, GroupEntry, LockHandle, WindowCount } from './store/types.js';
export type { MemoryStoreOptions } from './store/memory.js';
export type { BffLogger, LogFields, LogLevel, JsonLoggerOptions } from './observability/logger.js';
export type { BffMetrics, BffMetricsOptions } from './observability/metrics.js';
export type { SessionOptions } from './session/session-verifier.js';
export type { ClaimNames } from './session/claims.js';
export type { EmbedIdentity, IdentifyFunction } from './session/identity.js';
export type { UserGroupUpstream, UpstreamCallOptions } from './tokens/upstream.js';
