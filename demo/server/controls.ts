import type { EmulatorStats } from '@embedded-dashboard/protocol';
import type { DemoCustomer } from '../shared/customers.js';

/**
 * What the demo's buttons do to the vendor. The server implements it with the in-process
 * emulator; tests of the routes hand in a fake.
 */
export interface DemoControls {
  /** Makes the customer's current user group token stop working; `false` if it has none yet. */
  expireCurrentToken(customer: DemoCustomer): Promise<boolean>;
  setOutage(on: boolean): void;
  outage(): boolean;
  vendorStats(): EmulatorStats | Promise<EmulatorStats>;
}
