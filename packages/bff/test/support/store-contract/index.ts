import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeBudgetContract } from './budget.js';
import { describeEntryContract } from './entries.js';
import { describeLockAndCounterContract } from './locks.js';
import type { ContractStores } from './shared.js';

export type { ContractStores } from './shared.js';

/**
 * The store contract every `TokenStore` passes: the memory store, the Redis store (on a real
 * redis-server) and the Durable Object store (in workerd). Whatever the token service relies on
 * is here, one suite in parts by operation group (`contract/`): entries with their expiry,
 * `setIfAbsent` and `setIfAbsentOrSuperseded`, and the account-environment marker (`entries.ts`);
 * the single-flight lock with its expiry, owner and extension, and fixed-window counters
 * (`locks.ts`); the vendor budget (`budget.ts`). A new store operation gets its cases there, and
 * every implementation passes them.
 *
 * Times are real: what must expire does within a second, awaited with `vi.waitFor`; what must
 * not expire during a test lasts a minute (a busy machine takes tens of milliseconds a call).
 */
export function describeStoreContract(name: string, open: () => Promise<ContractStores>): void {
  describe(`${name}: the store contract`, () => {
    let stores: ContractStores;
    beforeEach(async () => {
      stores = await open();
    });
    afterEach(() => stores.close());
    const current = () => stores;

    describeEntryContract(current);
    describeLockAndCounterContract(current);
    describeBudgetContract(current);

    it('answers ping', async () => {
      await expect(stores.a.ping()).resolves.toBeUndefined();
      await expect(stores.b.ping()).resolves.toBeUndefined();
    });
  });
}
