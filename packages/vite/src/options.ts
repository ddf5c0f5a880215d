import type { SessionOptions } from '@embedded-dashboard/bff';
import { SAMPLE_CUSTOMERS, type DevCustomer } from './dev-customers.js';

/** Options of {@link embeddedDashboard}. */
export interface EmbeddedDashboardPluginOptions {
  /** The vendor's base URL. Unset: an emulator started in the dev server's process is the vendor. */
  upstream?: string;
  /** The vendor API token. Required with `upstream`; default with the emulator: its `dev-customer-key`. */
  apiToken?: string;
  /**
   * How the BFF verifies your users' sessions (`@embedded-dashboard/bff`'s `SessionOptions`).
   * Unset: sessions of the dev sign-in (a random secret per start, an HttpOnly cookie).
   */
  session?: SessionOptions;
  /**
   * Customers the dev-only sign-in `/__embedded-dashboard/login?customer=<id>` signs in as;
   * `false` turns it off. Default: three sample customers with the emulator, off with `upstream`
   * (and refused with it: the sign-in would let anyone act as any customer at your vendor).
   */
  devCustomers?: DevCustomer[] | false;
  /** Where the BFF's routes are mounted. Default `/embed`. */
  basePath?: string;
}

export interface ResolvedPluginOptions {
  upstream: string | undefined;
  apiToken: string;
  session: SessionOptions | undefined;
  devCustomers: readonly DevCustomer[] | undefined;
  basePath: string;
}

/** The emulator's dev API key (bound to its `Customer` environment). */
export const EMULATOR_API_TOKEN = 'dev-customer-key';

/** Merges defaults; throws a `TypeError` naming the option for a setup that cannot work or is unsafe. */
export function resolvePluginOptions(options: EmbeddedDashboardPluginOptions = {}): ResolvedPluginOptions {
  const { upstream, session } = options;
  if (upstream !== undefined && !/^https?:\/\/[^/]/.test(upstream)) throw new TypeError('embeddedDashboard: upstream must be an http(s) URL');
  if (upstream !== undefined && options.devCustomers) {
    throw new TypeError(
      'embeddedDashboard: devCustomers (the dev sign-in) cannot be used with a real upstream: anyone reaching the dev server could act as any customer at your vendor. Remove devCustomers, or remove upstream to use the emulator.',
    );
  }
  const apiToken = options.apiToken ?? (upstream === undefined ? EMULATOR_API_TOKEN : undefined);
  if (!apiToken) throw new TypeError('embeddedDashboard: apiToken is required with upstream (e.g. apiToken: process.env.EMBED_API_TOKEN)');
  const devCustomers = options.devCustomers === false || upstream !== undefined ? undefined : (options.devCustomers ?? SAMPLE_CUSTOMERS);
  if (devCustomers) {
    if (devCustomers.length === 0) throw new TypeError('embeddedDashboard: devCustomers must list at least one customer, or be false');
    for (const customer of devCustomers) {
      if (typeof customer?.id !== 'string' || !/^[A-Za-z0-9._-]{1,64}$/.test(customer.id))
        throw new TypeError('embeddedDashboard: devCustomers[].id must be 1-64 of A-Za-z0-9._-');
      if (typeof customer.name !== 'string' || customer.name === '') throw new TypeError('embeddedDashboard: devCustomers[].name must be a non-empty string');
    }
    if (session && (typeof session.secret !== 'string' || !session.cookie)) {
      throw new TypeError('embeddedDashboard: the dev sign-in signs sessions with session.secret into session.cookie: give both, or set devCustomers: false');
    }
  } else if (!session) {
    throw new TypeError("embeddedDashboard: session is required when the dev sign-in is off (how the BFF verifies your users' sessions)");
  }
  const basePath = options.basePath ?? '/embed';
  if (!/^\/[A-Za-z0-9._~/-]*[A-Za-z0-9._~-]$/.test(basePath)) throw new TypeError('embeddedDashboard: basePath must start with "/" and not end with "/"');
  return { upstream, apiToken, session, devCustomers, basePath };
}
