import type { Environment, TokenResponse } from '@embedded-dashboard/protocol';
import type { CircuitBreakerOptions } from '../circuit-breaker/circuit-breaker.js';
import type { BffError } from '../errors/bff-error.js';
import type { BffLogger } from '../observability/logger.js';
import { hotCounter, type BffMetrics } from '../observability/metrics.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import type { CallPriority, UpstreamBudget } from '../vendor-budget/upstream-budget.js';
import type { GroupEntry } from '../store/types.js';
import { AccountEnvironment } from './account-environment.js';
import { DriftPolicy } from './drift-policy.js';
import type { HeldEntry } from './fleet-lock.js';
import { GroupEntries } from './group-entries.js';
import type { GuardedStore } from './guarded-store.js';
import type { ResolvedGroup } from './resolved-group.js';
import { TokenRotation } from './rotation.js';
import type { UserGroupUpstream } from './upstream.js';
import { isVendorOutage, VendorCalls } from './vendor-calls.js';

export interface TokenServiceSettings {
  tokenTtlSeconds: number;
  revalidateAfterMs: number;
  entryTtlMs: number;
  minRotationIntervalMs: number;
  lockTtlMs: number;
  lockWaitMs: number;
  pollIntervalMs: number;
  /** Monotonic clock of the lock protocol's bounds (default `performance.now`). */
  clock?: () => number;
  expectEnvironment: Environment | undefined;
  /** The breaker around the vendor calls; `false`: none. */
  circuitBreaker: CircuitBreakerOptions | false;
  /** The upstream's `accountId`: entries of any other account are misses. */
  account: string | undefined;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/**
 * Gets each group's current token with as few vendor calls as possible, keeps the vendor's
 * copy of the group in sync with the session (drift sync), and rotates safely. It composes the
 * parts that each do one job: the store's entries shared across processes (`GroupEntries`:
 * account scope, locks, waiting for another process), every vendor call (`VendorCalls`: circuit
 * breaker and budget), the account's environment (`AccountEnvironment`) and rotation
 * (`TokenRotation`).
 *
 * Single-flight has two layers: a promise per group in this process, and a store lock per group
 * so processes sharing a store (Redis) do not call the vendor for the same group at once.
 */
export class TokenService {
  readonly #upstream: UserGroupUpstream;
  /**
   * The store's entries (account scope, locks) and the vendor-call function (breaker, budget)
   * this service uses, shared with the embed-token mode's vendor mint: its `generate_jwt` calls
   * count against the same budget and circuits, and its entries live in the same store.
   */
  readonly entries: GroupEntries;
  readonly calls: VendorCalls;
  readonly #logger: BffLogger;
  readonly #s: TokenServiceSettings;
  readonly #syncs = new Map<string, Promise<GroupEntry>>();
  readonly #hit;
  readonly #miss;
  readonly #environment: AccountEnvironment;
  readonly #rotation: TokenRotation;

  constructor(
    upstream: UserGroupUpstream,
    store: GuardedStore,
    logger: BffLogger,
    metrics: BffMetrics,
    settings: TokenServiceSettings,
    budget: UpstreamBudget = { run: (_priority, call) => call() },
  ) {
    this.#upstream = upstream;
    this.entries = new GroupEntries(store, settings);
    this.#logger = logger;
    this.#s = settings;
    this.#hit = hotCounter(metrics.cacheLookups, 'hit');
    this.#miss = hotCounter(metrics.cacheLookups, 'miss');
    this.calls = new VendorCalls(settings.circuitBreaker, budget, settings.now, logger, metrics);
    this.#environment = new AccountEnvironment(upstream, this.entries, this.calls, logger, settings);
    this.#rotation = new TokenRotation(upstream, this.entries, this.calls, this.#environment, logger, metrics, settings);
  }

  /**
   * The group's current token (`POST /embed/token`). Answered at once, without a promise, when a
   * synchronous store (this process's memory) holds a fresh entry: the hot path of a returning
   * caller. A shared store is always awaited, so another process's rotation is always seen.
   */
  token(group: ResolvedGroup): MaybePromise<TokenResponse> {
    return andThen(this.#current(group), this.#respond);
  }

  /**
   * `POST /embed/token/rotate`: `presented` is compared only with the caller's own group's
   * token. The current token is rotated upstream (once per group at a time, at most once per
   * minimum interval: inside it the holder gets 429 with `Retry-After`); any other token is
   * answered with the current one.
   */
  async rotate(group: ResolvedGroup, presented: string): Promise<TokenResponse> {
    const entry = await this.#current(group);
    return this.#respond(await this.#rotation.rotate(group, entry, presented));
  }

  readonly #respond = (entry: GroupEntry): TokenResponse => {
    const ttl = this.#s.tokenTtlSeconds;
    return { token: entry.token, expiresAt: ttl === 0 ? null : entry.firstSeenAt + ttl * 1000, serverTime: this.#s.now() };
  };

  #isFresh(entry: GroupEntry, fingerprint: string): boolean {
    return entry.fingerprint === fingerprint && this.#s.now() - entry.syncedAt < this.#s.revalidateAfterMs;
  }

  /** The group's entry when it is fresh, else the result of syncing the group with the vendor. */
  #current(group: ResolvedGroup): MaybePromise<GroupEntry> {
    const entry = this.entries.read(group.key);
    return entry instanceof Promise ? entry.then((e) => this.#freshOrSynced(group, e)) : this.#freshOrSynced(group, entry);
  }

  #freshOrSynced(group: ResolvedGroup, entry: GroupEntry | undefined): MaybePromise<GroupEntry> {
    if (entry !== undefined && (this.#isFresh(entry, group.fingerprint) || this.#superseded(entry, group))) {
      this.#hit.inc();
      return entry;
    }
    this.#miss.inc();
    const synced = this.#sharedSync(group).then((synced) =>
      // A sync started for another version of this group's input (a session changed meanwhile): run ours.
      synced.fingerprint === group.fingerprint ? synced : this.#sharedSync(group),
    );
    // Revalidation during a vendor outage: the token last synced with this very input still serves.
    // Never after the input changed: the vendor's copy may be wider than the session now says.
    if (entry === undefined || entry.fingerprint !== group.fingerprint) return synced;
    return synced.catch((error: unknown) => {
      if (!isVendorOutage(error)) throw error;
      this.#logger.info("vendor unavailable: serving the group's last synced token", { code: (error as BffError).code });
      return entry;
    });
  }

  /** A session older than the one whose (different) claims were last synced: served, never rewriting. */
  #superseded(entry: GroupEntry, group: ResolvedGroup): boolean {
    return entry.fingerprint !== group.fingerprint && !DriftPolicy.mayRewrite(entry, group, this.#s.now());
  }

  #sharedSync(group: ResolvedGroup): Promise<GroupEntry> {
    let pending = this.#syncs.get(group.key);
    if (pending === undefined) {
      pending = this.#syncLocked(group).finally(() => this.#syncs.delete(group.key));
      this.#syncs.set(group.key, pending);
    }
    return pending;
  }

  /**
   * One sync of the group at a time across processes (the store lock `sync:<key>`); the others
   * wait for its entry, and take over the lock if the holder ends without it (or dies).
   */
  async #syncLocked(group: ResolvedGroup): Promise<GroupEntry> {
    const sync = async (held: HeldEntry) => {
      const latest = await held.read();
      if (latest !== undefined && (this.#isFresh(latest, group.fingerprint) || this.#superseded(latest, group))) return latest;
      return this.#refresh(group, latest, held);
    };
    return this.entries.exclusive(`sync:${group.key}`, group.key, (e) => this.#isFresh(e, group.fingerprint), sync, "fetching this customer's token");
  }

  /**
   * get-or-create, then update when the vendor's copy may differ from the session's (drift on
   * either side, see `DriftPolicy`). With `expectEnvironment`, the account's environment is
   * checked first, so a wrong one is refused before any customer's group is touched.
   * Without a cached entry the visitor is waiting for a first token; with one, the call is drift
   * sync or revalidation, which the vendor budget may defer: the cached entry is served meanwhile.
   */
  async #refresh(group: ResolvedGroup, previous: GroupEntry | undefined, held: HeldEntry): Promise<GroupEntry> {
    let environment = previous?.environment ?? (await this.#environment.beforeSync());
    const priority: CallPriority = previous === undefined ? 'first-token' : previous.fingerprint === group.fingerprint ? 'revalidation' : 'drift';
    const got = await this.calls.deferrable(group.key, 'getOrCreate', priority, previous !== undefined, () => this.#upstream.getOrCreateUserGroup(group.group));
    if (got === undefined) return previous!;
    let token = got.user_group.token;
    // get-or-create never changes an existing group, so anything not just created with this very
    // input, not known to be synced with it, or not what the vendor holds in a managed field, is
    // updated; the update sends only managed fields (no `mapping` unless the session gives one, so
    // a mapping set at the vendor stays). While the store cannot say what it holds for the group
    // (down, or its node failing over), what other processes synced is unknown: a group another
    // process created is taken as synced when the answer shows it as this session wants it (name,
    // properties, and a managed mapping: the Customer API's answer carries
    // `parent_schema_datasource_mapping`), so an outage costs one call per group per process. That
    // skips a write, never makes one: an older session cannot overwrite a newer one through it.
    // `/api/user`'s answer has no mapping: there a mapping-only change is written once the store is
    // back (the stored entry's fingerprint differs).
    const syncedElsewhere = previous === undefined && this.entries.degradedFor(group.key) && DriftPolicy.answerMatches(got.user_group, group.group);
    const inSync =
      (got.new_user_group || previous?.fingerprint === group.fingerprint || syncedElsewhere) && !DriftPolicy.vendorDiffers(got.user_group, group.group);
    if (!inSync) {
      const updatePriority = previous === undefined ? 'first-token' : 'drift';
      const updated = await this.calls.deferrable(group.key, 'update', updatePriority, previous !== undefined, () =>
        this.#upstream.updateUserGroup(group.group),
      );
      if (updated === undefined) return previous!;
      token = updated.user_group.token;
      environment = this.#environment.note(updated.user_group.api_environment_tag) ?? environment;
    }
    this.#environment.check(environment);
    const now = this.#s.now();
    const sameToken = previous?.token === token;
    const syncedIssuedAt = DriftPolicy.syncedIssuedAt(previous, now);
    const entry: GroupEntry = {
      token,
      firstSeenAt: sameToken ? previous.firstSeenAt : now,
      fingerprint: group.fingerprint,
      previousToken: sameToken ? previous.previousToken : (previous?.token ?? null),
      environment,
      syncedAt: now,
      lastRotatedAt: previous?.lastRotatedAt ?? null,
      claimsIssuedAt: Math.max(syncedIssuedAt ?? 0, group.issuedAtMs),
    };
    await held.write(entry);
    return entry;
  }
}
