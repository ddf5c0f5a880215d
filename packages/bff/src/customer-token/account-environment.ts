import type { Environment, UserGroupInput } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import type { GroupEntries } from './group-entries.js';
import type { UserGroupUpstream } from './upstream.js';
import type { VendorCalls } from './vendor-calls.js';

/**
 * The group the BFF uses to learn its vendor account's environment: get-or-create does not say
 * which environment answered, update does. No customer's data goes into it.
 */
export const ENVIRONMENT_PROBE_GROUP: UserGroupInput = {
  user_group_id: 'embedded-dashboard-environment-probe',
  name: 'Environment probe (embedded-dashboard)',
  mapping: {},
  properties: {},
};

/**
 * The `token` of the store entry that records the account's environment for every process
 * sharing the store (key `account-environment:<account>`, never a group's key). It is not a
 * token and is never handed out; it is not empty because stores refuse entries without a token
 * (the Redis codec reads such an entry as a miss, and each process would probe again).
 */
export const ENVIRONMENT_MARKER_TOKEN = 'account-environment-marker';

export interface AccountEnvironmentSettings {
  /** The environment this BFF must serve; `undefined`: either. */
  expectEnvironment: Environment | undefined;
  account: string | undefined;
  now: () => number;
}

/**
 * The vendor account's environment (`Customer` or `Testing`), and the refusal of a wrong one. An
 * API key belongs to one environment, so one answer stands for every group of the account: it is
 * learned once (per process, or from another process through the store) before any customer's
 * group is touched, re-checked on every vendor answer that states it, and a wrong or unstated one
 * is refused with 502 and remembered (no further vendor calls).
 */
export class AccountEnvironment {
  readonly #upstream: UserGroupUpstream;
  readonly #entries: GroupEntries;
  readonly #calls: VendorCalls;
  readonly #logger: BffLogger;
  readonly #s: AccountEnvironmentSettings;
  /** What a vendor answer last stated (every group of an account shares it). */
  #known: Environment | null = null;
  #learning: Promise<Environment | null> | undefined;
  /** The refusal of a wrong (or unstated) account environment, once found: answered again without a vendor call. */
  #refusal: BffError | undefined;

  constructor(upstream: UserGroupUpstream, entries: GroupEntries, calls: VendorCalls, logger: BffLogger, settings: AccountEnvironmentSettings) {
    this.#upstream = upstream;
    this.#entries = entries;
    this.#calls = calls;
    this.#logger = logger;
    this.#s = settings;
  }

  /**
   * Before a group without a known environment is synced: with an expected environment, the
   * account's, learned once and checked (a wrong or unstated one is refused now and on every later
   * request); without one, `null` and no vendor call.
   */
  async beforeSync(): Promise<Environment | null> {
    if (this.#s.expectEnvironment === undefined) return null;
    if (this.#refusal !== undefined) throw this.#refusal;
    const environment = await this.#ofAccount();
    try {
      this.check(environment);
    } catch (error) {
      this.#refusal ??= error as BffError;
      throw error;
    }
    return environment;
  }

  /**
   * Known in this process, else stored by any process sharing the store, else learned (one at a
   * time per process; the others wait for it) with get-or-create and update of the probe group,
   * which holds no customer's data: so a wrong environment is found before any customer's group
   * is touched.
   */
  async #ofAccount(): Promise<Environment | null> {
    if (this.#known !== null) return this.#known;
    this.#learning ??= (async () => {
      const stored = (await this.#entries.read(this.#key()))?.environment ?? null;
      if (stored !== null) return (this.#known = stored);
      await this.#calls.call(this.#key(), 'getOrCreate', 'first-token', () => this.#upstream.getOrCreateUserGroup(ENVIRONMENT_PROBE_GROUP));
      const probed = await this.#calls.call(this.#key(), 'update', 'first-token', () => this.#upstream.updateUserGroup(ENVIRONMENT_PROBE_GROUP));
      return this.note(probed.user_group.api_environment_tag);
    })().finally(() => {
      this.#learning = undefined;
    });
    return this.#learning;
  }

  /**
   * Records the environment a vendor answer stated (update and rotate do), for the whole account:
   * a changed answer replaces what was known, so a misconfiguration is refused for every group.
   * Returns the stated environment, `null` when the answer stated none.
   */
  note(tag: Environment | null | undefined): Environment | null {
    if (tag === undefined || tag === null) return null;
    if (tag !== this.#known) {
      this.#known = tag;
      const now = this.#s.now();
      void this.#entries.write(this.#key(), {
        token: ENVIRONMENT_MARKER_TOKEN,
        firstSeenAt: now,
        fingerprint: '',
        previousToken: null,
        environment: tag,
        syncedAt: now,
        lastRotatedAt: null,
      });
    }
    return tag;
  }

  #key(): string {
    return `account-environment:${this.#s.account ?? ''}`;
  }

  /** Throws the 502 for a token of `environment` when this BFF must serve another one (or the vendor did not say). */
  check(environment: Environment | null): void {
    const expected = this.#s.expectEnvironment;
    if (expected === undefined || environment === expected) return;
    if (environment === null) {
      // Fail closed: a vendor that never states the environment could be serving the other one.
      this.#logger.error('environment unknown: the vendor did not state it, so no token is handed out', { expected });
      throw new BffError('upstream_error', `the dashboard vendor did not say which environment it serves, and this service must serve ${expected}`, {
        retryable: false,
      });
    }
    this.#logger.error('environment mismatch: the vendor API token serves another environment', { expected, actual: environment });
    throw new BffError('upstream_error', `the dashboard vendor answered for the ${environment} environment, but this service must serve ${expected}`, {
      retryable: false,
    });
  }
}
