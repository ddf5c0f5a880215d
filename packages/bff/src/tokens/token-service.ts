import type { Environment, TokenResponse, UserGroupInput } from '@embedded-dashboard/protocol';
import { CircuitBreaker, type CircuitBreakerOptions } from '../circuit-breaker/circuit-breaker.js';
import { BffError } from '../errors/bff-error.js';
import { isAmbiguousFailure, toBffError } from '../errors/upstream-error.js';
import { describeError, type BffLogger } from '../observability/logger.js';
import { hotCounter, type BffMetrics } from '../observability/metrics.js';
import { andThen, type MaybePromise } from '../util/maybe-promise.js';
import { BudgetRefusedError, type CallPriority, type UpstreamBudget } from '../budget/upstream-budget.js';
import type { GroupEntry } from '../store/types.js';
import { ENVIRONMENT_MARKER_TOKEN, ENVIRONMENT_PROBE_GROUP } from './environment-probe.js';
import { DriftPolicy } from './drift-policy.js';
import type { GuardedStore } from './guarded-store.js';
import type { UserGroupUpstream } from './upstream.js';

/** A caller's group with what the service derives from it once: its store key and fingerprint. */
export interface ResolvedGroup {
  group: UserGroupInput;
  key: string;
  fingerprint: string;
  /** `iat` of the caller's session in epoch ms (0 when unknown): see `DriftPolicy`. */
  issuedAtMs: number;
}

export interface TokenServiceSettings {
  tokenTtlSeconds: number;
  revalidateAfterMs: number;
  entryTtlMs: number;
  minRotationIntervalMs: number;
  lockTtlMs: number;
  lockWaitMs: number;
  pollIntervalMs: number;
  expectEnvironment: Environment | undefined;
  /** The breaker around the vendor calls; `false`: none. */
  circuitBreaker: CircuitBreakerOptions | false;
  /** The upstream's `accountId`: entries of any other account are misses. */
  account: string | undefined;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

/** How a rotation request ended, as counted in `rotations_total{result}`. */
type RotationOutcome =
  | { result: 'rotated' | 'recovered' | 'current'; entry: GroupEntry }
  | { result: 'throttled' | 'refused'; error: BffError };

/** A new token from the vendor: rotated, or (after an ambiguous failure) recovered with get-or-create. */
interface VendorRotation {
  result: 'rotated' | 'recovered';
  token: string;
  /** The environment the vendor stated; `null` when it said nothing (get-or-create never does). */
  environment: Environment | null;
}

type Op = 'getOrCreate' | 'update' | 'rotate';

/** A failure of the vendor itself (or the breaker standing in for it), not a refusal of this group. */
const isVendorOutage = (error: unknown): boolean =>
  error instanceof BffError && (error.code === 'upstream_unavailable' || error.code === 'upstream_timeout' || (error.code === 'upstream_error' && error.retryable));
const OP_NAMES: Record<Op, string> = { getOrCreate: 'get-or-create', update: 'update', rotate: 'token rotation' };

/**
 * Gets each group's current token with as few vendor calls as possible, keeps the vendor's
 * copy of the group in sync with the session (drift sync), and rotates safely.
 *
 * Single-flight has two layers: a promise per group in this process, and a store lock per group
 * so processes sharing a store (Redis) do not call the vendor for the same group at once.
 */
export class TokenService {
  readonly #upstream: UserGroupUpstream;
  readonly #store: GuardedStore;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #s: TokenServiceSettings;
  readonly #syncs = new Map<string, Promise<GroupEntry>>();
  readonly #rotations = new Map<string, Promise<GroupEntry>>();
  readonly #hit;
  readonly #miss;
  readonly #breaker: CircuitBreaker | undefined;
  readonly #budget: UpstreamBudget;
  /** The vendor account's environment once a vendor answer stated it (every group of an account shares it). */
  #accountEnvironment: Environment | null = null;
  #learningEnvironment: Promise<Environment | null> | undefined;
  /** The refusal of a wrong (or unstated) account environment, once found: answered again without a vendor call. */
  #environmentRefusal: BffError | undefined;

  constructor(
    upstream: UserGroupUpstream,
    store: GuardedStore,
    logger: BffLogger,
    metrics: BffMetrics,
    settings: TokenServiceSettings,
    budget: UpstreamBudget = { run: (_priority, call) => call() },
  ) {
    this.#budget = budget;
    this.#upstream = upstream;
    this.#store = store;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#s = settings;
    this.#hit = hotCounter(metrics.cacheLookups, 'hit');
    this.#miss = hotCounter(metrics.cacheLookups, 'miss');
    this.#breaker = settings.circuitBreaker === false ? undefined : new CircuitBreaker(settings.circuitBreaker, settings.now, logger, metrics);
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
    const answered = this.#answerWithoutRotating(entry, presented);
    if (answered !== undefined) return this.#respond(this.#settle(answered));
    let pending = this.#rotations.get(group.key);
    if (pending === undefined) {
      pending = this.#rotateLocked(group, entry)
        .then((outcome) => this.#settle(outcome))
        .finally(() => this.#rotations.delete(group.key));
      this.#rotations.set(group.key, pending);
    }
    return this.#respond(await pending);
  }

  readonly #respond = (entry: GroupEntry): TokenResponse => {
    const ttl = this.#s.tokenTtlSeconds;
    return { token: entry.token, expiresAt: ttl === 0 ? null : entry.firstSeenAt + ttl * 1000, serverTime: this.#s.now() };
  };

  #isFresh(entry: GroupEntry, fingerprint: string): boolean {
    return entry.fingerprint === fingerprint && this.#s.now() - entry.syncedAt < this.#s.revalidateAfterMs;
  }

  /**
   * Rotation requests that need no vendor call: a token other than the current one (the previous
   * one, or another group's) is answered with the current token. Inside the minimum interval the
   * current token cannot be rotated: its holder presents it because the vendor just refused it
   * (the dashboard said it expired), so answering it again would hand back a dead token; a 429
   * makes the element wait out the interval and ask again. `undefined`: rotate upstream.
   */
  #answerWithoutRotating(entry: GroupEntry, presented: string): RotationOutcome | undefined {
    if (presented !== entry.token) return { result: 'current', entry };
    if (entry.lastRotatedAt === null) return undefined;
    const leftMs = entry.lastRotatedAt + this.#s.minRotationIntervalMs - this.#s.now();
    if (leftMs <= 0) return undefined;
    const error = new BffError('rate_limited', 'this token was rotated moments ago; retry after the minimum rotation interval', {
      retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    });
    return { result: 'throttled', error };
  }

  /** The one place rotation outcomes are counted (`rotations_total{result}`): the entry to answer, or the error to throw. */
  #settle(outcome: RotationOutcome): GroupEntry {
    this.#metrics.rotations.labels(outcome.result).inc();
    if ('error' in outcome) throw outcome.error;
    return outcome.entry;
  }

  /**
   * The group's entry when it belongs to this BFF's vendor account. An entry of another account
   * (a store shared with a deployment using another API token or vendor, even under the same
   * key) is a miss: its tokens are not ours to hand out, nor to rotate.
   */
  #read(key: string): MaybePromise<GroupEntry | undefined> {
    return andThen(this.#store.get(key), this.#ours);
  }

  readonly #ours = (entry: GroupEntry | undefined): GroupEntry | undefined =>
    entry === undefined || entry.account !== this.#s.account ? undefined : entry;

  /** The group's entry when it is fresh, else the result of syncing the group with the vendor. */
  #current(group: ResolvedGroup): MaybePromise<GroupEntry> {
    const entry = this.#read(group.key);
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
      this.#logger.info('vendor unavailable: serving the group\'s last synced token', { code: (error as BffError).code });
      return entry;
    });
  }

  /** A session older than the one whose (different) claims were last synced: served, never rewriting. */
  #superseded(entry: GroupEntry, group: ResolvedGroup): boolean {
    return entry.fingerprint !== group.fingerprint && !DriftPolicy.mayRewrite(entry, group.issuedAtMs);
  }

  #sharedSync(group: ResolvedGroup): Promise<GroupEntry> {
    let pending = this.#syncs.get(group.key);
    if (pending === undefined) {
      pending = this.#syncLocked(group).finally(() => this.#syncs.delete(group.key));
      this.#syncs.set(group.key, pending);
    }
    return pending;
  }

  async #syncLocked(group: ResolvedGroup): Promise<GroupEntry> {
    const lock = await this.#store.tryLock(`sync:${group.key}`, this.#s.lockTtlMs);
    if (lock === undefined) {
      const done = await this.#waitFor(group.key, (e) => this.#isFresh(e, group.fingerprint));
      if (done !== undefined) return done;
      // The holder is slow or gone; get-or-create and update are idempotent, so go ahead.
    }
    try {
      const latest = await this.#read(group.key);
      if (latest !== undefined && (this.#isFresh(latest, group.fingerprint) || this.#superseded(latest, group))) return latest;
      return await this.#refresh(group, latest);
    } finally {
      await lock?.release();
    }
  }

  /**
   * get-or-create, then update when the vendor's copy may differ from the session's (drift on
   * either side, see `DriftPolicy`). With `expectEnvironment`, the account's environment is
   * checked first, so a wrong one is refused before any customer's group is touched.
   * Without a cached entry the visitor is waiting for a first token; with one, the call is drift
   * sync or revalidation, which the vendor budget may defer: the cached entry is served meanwhile.
   */
  async #refresh(group: ResolvedGroup, previous: GroupEntry | undefined): Promise<GroupEntry> {
    let environment = previous?.environment ?? null;
    if (this.#s.expectEnvironment !== undefined && environment === null) environment = await this.#checkedAccountEnvironment();
    const priority: CallPriority = previous === undefined ? 'first-token' : previous.fingerprint === group.fingerprint ? 'revalidation' : 'drift';
    const got = await this.#deferrable(priority, previous, () => this.#call('getOrCreate', priority, () => this.#upstream.getOrCreateUserGroup(group.group)));
    if (got === undefined) return previous!;
    let token = got.user_group.token;
    // get-or-create never changes an existing group, so anything not just created with this very
    // input, not known to be synced with it, or not what the vendor holds, is updated. While the
    // store is down, what other processes synced is unknown: a group another process created is
    // taken as synced when the answer shows it as this session wants it (name and properties), so
    // an outage costs one call per group per process. That skips a write, never makes one: an
    // older session cannot overwrite a newer one through it. The mapping is not in the answer; a
    // mapping-only change is written once the store is back (the stored entry's fingerprint differs).
    const syncedElsewhere = previous === undefined && this.#store.degraded && DriftPolicy.answerMatches(got.user_group, group.group);
    const inSync = (got.new_user_group || previous?.fingerprint === group.fingerprint || syncedElsewhere) && !DriftPolicy.vendorDiffers(got.user_group, group.group);
    if (!inSync) {
      const updatePriority = previous === undefined ? 'first-token' : 'drift';
      const updated = await this.#deferrable(updatePriority, previous, () => this.#call('update', updatePriority, () => this.#upstream.updateUserGroup(group.group)));
      if (updated === undefined) return previous!;
      token = updated.user_group.token;
      environment = this.#noteEnvironment(updated.user_group.api_environment_tag) ?? environment;
    }
    this.#checkEnvironment(environment);
    const now = this.#s.now();
    const sameToken = previous?.token === token;
    const entry: GroupEntry = {
      token,
      firstSeenAt: sameToken ? previous.firstSeenAt : now,
      fingerprint: group.fingerprint,
      previousToken: sameToken ? previous.previousToken : (previous?.token ?? null),
      environment,
      syncedAt: now,
      lastRotatedAt: previous?.lastRotatedAt ?? null,
      claimsIssuedAt: Math.max(previous?.claimsIssuedAt ?? 0, group.issuedAtMs),
    };
    if (this.#s.account !== undefined) entry.account = this.#s.account;
    await this.#store.set(group.key, entry, this.#s.entryTtlMs);
    return entry;
  }

  /** `call`, or `undefined` when the budget refused a deferrable call while a cached entry can be served. */
  async #deferrable<T>(priority: CallPriority, cached: GroupEntry | undefined, call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof BudgetRefusedError) || cached === undefined || priority === 'first-token') throw error;
      this.#metrics.budgetDeferred.labels(priority).inc();
      return undefined;
    }
  }

  /**
   * The vendor account's environment: known in this process, else stored by any process sharing
   * the store, else learned (one at a time per process; the others wait for it) with
   * get-or-create and update of the probe group, which holds no customer's data: so a wrong
   * environment is found before any customer's group is touched. An API key belongs to one
   * environment, so one answer serves every group.
   */
  async #environmentOfAccount(): Promise<Environment | null> {
    if (this.#accountEnvironment !== null) return this.#accountEnvironment;
    this.#learningEnvironment ??= (async () => {
      const stored = (await this.#read(this.#environmentKey()))?.environment ?? null;
      if (stored !== null) return (this.#accountEnvironment = stored);
      await this.#call('getOrCreate', 'first-token', () => this.#upstream.getOrCreateUserGroup(ENVIRONMENT_PROBE_GROUP));
      const probed = await this.#call('update', 'first-token', () => this.#upstream.updateUserGroup(ENVIRONMENT_PROBE_GROUP));
      return this.#noteEnvironment(probed.user_group.api_environment_tag);
    })().finally(() => {
      this.#learningEnvironment = undefined;
    });
    return this.#learningEnvironment;
  }

  /**
   * Records the environment a vendor answer stated (update and rotate do), for the whole account:
   * a changed answer replaces what was known, so a misconfiguration is refused for every group.
   */
  #noteEnvironment(tag: Environment | null | undefined): Environment | null {
    if (tag === undefined || tag === null) return null;
    if (tag !== this.#accountEnvironment) {
      this.#accountEnvironment = tag;
      const now = this.#s.now();
      const marker: GroupEntry = { token: ENVIRONMENT_MARKER_TOKEN, firstSeenAt: now, fingerprint: '', previousToken: null, environment: tag, syncedAt: now, lastRotatedAt: null };
      if (this.#s.account !== undefined) marker.account = this.#s.account;
      void this.#store.set(this.#environmentKey(), marker, this.#s.entryTtlMs);
    }
    return tag;
  }

  #environmentKey(): string {
    return `account-environment:${this.#s.account ?? ''}`;
  }

  /** One rotation of the group's token at a time across processes: the store lock `rotate:<key>`. */
  async #rotateLocked(group: ResolvedGroup, seen: GroupEntry): Promise<RotationOutcome> {
    const lock = await this.#store.tryLock(`rotate:${group.key}`, this.#s.lockTtlMs);
    if (lock === undefined) {
      // Another process is rotating this group: hand out whatever it produces.
      return { result: 'current', entry: (await this.#waitFor(group.key, (e) => e.token !== seen.token)) ?? seen };
    }
    try {
      const current = (await this.#read(group.key)) ?? seen;
      // Re-checked under the lock: the entry read before it may be out of date.
      return this.#answerWithoutRotating(current, seen.token) ?? (await this.#rotateUpstream(group, current));
    } finally {
      await lock.release();
    }
  }

  /** Rotates `current.token` at the vendor and stores the new token as current, the presented one as previous. */
  async #rotateUpstream(group: ResolvedGroup, current: GroupEntry): Promise<RotationOutcome> {
    const presented = current.token;
    const rotated = await this.#vendorRotation(group, presented);
    if (rotated === 'other group') {
      // Revalidate on the next request: get-or-create names this group's real token.
      await this.#store.set(group.key, { ...current, syncedAt: 0 }, this.#s.entryTtlMs);
      return { result: 'refused', error: this.#rotatedOtherGroup(group) };
    }
    const environment = rotated.environment ?? current.environment;
    this.#checkEnvironment(environment);
    const now = this.#s.now();
    const next: GroupEntry = { ...current, token: rotated.token, environment, firstSeenAt: now, previousToken: presented, lastRotatedAt: now };
    await this.#store.set(group.key, next, this.#s.entryTtlMs);
    return { result: rotated.result, entry: next };
  }

  /**
   * The vendor's rotation of `presented`. Rotate is never retried: when its outcome is unknown
   * (no answer, an unreadable one, a 5xx), get-or-create tells which token is current.
   */
  async #vendorRotation(group: ResolvedGroup, presented: string): Promise<VendorRotation | 'other group'> {
    try {
      const { user_group } = await this.#call('rotate', 'rotation', () => this.#upstream.rotateUserGroupToken(presented));
      if (user_group.provided_id !== group.group.user_group_id) return 'other group';
      return { result: 'rotated', token: user_group.token, environment: this.#noteEnvironment(user_group.api_environment_tag) };
    } catch (error) {
      if (!(error instanceof BffError) || !isAmbiguousFailure(error.cause)) throw error;
      this.#logger.warn('rotation outcome unknown: re-reading the current token', { error: describeError(error.cause) });
      const got = await this.#call('getOrCreate', 'rotation', () => this.#upstream.getOrCreateUserGroup(group.group));
      if (got.user_group.token === presented) throw error;
      return { result: 'recovered', token: got.user_group.token, environment: null };
    }
  }

  /**
   * The vendor rotated the token of the group it says it did: anything else (a cache entry that
   * was not this group's, a vendor bug) must not hand the new token to this caller.
   */
  #rotatedOtherGroup(group: ResolvedGroup): BffError {
    this.#logger.error('rotation answered for another user group: token withheld', { expected: group.group.user_group_id.slice(0, 256) });
    return new BffError('upstream_error', 'the dashboard vendor rotated a token of another user group; nothing was handed out', { retryable: false });
  }

  /** The account's environment, learned once; a wrong or unstated one is refused now and on every later request. */
  async #checkedAccountEnvironment(): Promise<Environment | null> {
    if (this.#environmentRefusal !== undefined) throw this.#environmentRefusal;
    const environment = await this.#environmentOfAccount();
    try {
      this.#checkEnvironment(environment);
    } catch (error) {
      this.#environmentRefusal ??= error as BffError;
      throw error;
    }
    return environment;
  }

  #checkEnvironment(environment: Environment | null): void {
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

  async #waitFor(key: string, done: (entry: GroupEntry) => boolean): Promise<GroupEntry | undefined> {
    // Counted polls, not a deadline: an injected clock that stands still must not wait forever.
    for (let polls = Math.ceil(this.#s.lockWaitMs / this.#s.pollIntervalMs); polls > 0; polls -= 1) {
      await this.#s.sleep(this.#s.pollIntervalMs);
      const entry = await this.#read(key);
      if (entry !== undefined && done(entry)) return entry;
    }
    return undefined;
  }

  /**
   * Every vendor call goes through here, and only here: it is timed, counted by outcome, logged
   * when it fails, and its failure mapped to the browser-facing error. Policy about whether and
   * when to call the vendor at all wraps `call` at this one spot (outermost first), so each
   * policy stays a module of its own that the service composes: the circuit breaker (an open
   * breaker fails at once, nothing else is spent), then the vendor budget (the call waits for its
   * slot, or is refused without reaching the vendor), then the call itself.
   */
  async #call<T>(op: Op, priority: CallPriority, call: () => Promise<T>): Promise<T> {
    const timed = async () => {
      const stop = this.#metrics.upstreamDuration.startTimer({ op });
      try {
        return await call();
      } finally {
        stop();
      }
    };
    const budgeted = () => this.#budget.run(priority, timed);
    try {
      const result = await (this.#breaker === undefined ? budgeted() : this.#breaker.run(budgeted));
      this.#metrics.upstreamCalls.labels(op, 'ok').inc();
      return result;
    } catch (error) {
      // The budget refused: the vendor was not called (the budget's own metric counts it).
      if (error instanceof BudgetRefusedError) throw error;
      if (error instanceof BffError) {
        // The breaker refused: the vendor was not called.
        this.#metrics.upstreamCalls.labels(op, 'circuit_open').inc();
        throw error;
      }
      const code = (error as { code?: unknown }).code;
      this.#metrics.upstreamCalls.labels(op, typeof code === 'string' ? code : 'error').inc();
      this.#logger.warn('vendor call failed', { op, error: describeError(error) });
      throw toBffError(error, OP_NAMES[op]);
    }
  }
}
