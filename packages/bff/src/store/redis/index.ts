export { createRedisStore } from './redis-store.js';
export type { RedisStore, RedisStoreOptions, RedisStoreStatus } from './redis-store.js';
export { RedisStoreError } from './errors.js';
export type { RedisStoreErrorCode } from './errors.js';
