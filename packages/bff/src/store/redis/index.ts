export { createRedisStore } from './redis-store.js';
export type { RedisStore } from './redis-store.js';
export type { RedisStoreOptions, RedisStoreStatus } from './redis-options.js';
export { RedisStoreError } from './errors.js';
export type { RedisStoreErrorCode } from './errors.js';
