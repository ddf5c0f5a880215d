import { vi } from 'vitest';
import type { TokenStore } from '../../../src/store/types.js';

/**
 * Two clients of one fresh, empty store: two processes (or Workers) sharing a Redis or the
 * Durable Objects, or the same object twice for a store in one process's memory. Every test
 * opens its own, so no test sees another's keys.
 */
export interface ContractStores {
  a: TokenStore;
  b: TokenStore;
  close(): Promise<void>;
}

/** What must expire does within a second: awaited with `vi.waitFor`, never timed. */
export const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 5_000, interval: 20 });
