import type { EmulatorStats } from '@embedded-dashboard/protocol';
import type { DemoExpireResult, DemoTimings } from '../shared/api.js';
import type { DemoCustomer } from '../shared/customers.js';

/**
 * What the demo's buttons do to the vendor. The server implements it with the in-process
 * emulator; tests of the routes hand in a fake.
 */
export interface DemoControls {
  /** Makes the customer's current user group token stop working. */
  expireCurrentToken(customer: DemoCustomer): Promise<DemoExpireResult['outcome']>;
  setOutage(on: boolean): void;
  outage(): boolean;
  vendorStats(): EmulatorStats | Promise<EmulatorStats>;
  /** The timings the page's elements reported to the BFFs; absent: none are kept. */
  timings?(): Promise<DemoTimings>;
}
