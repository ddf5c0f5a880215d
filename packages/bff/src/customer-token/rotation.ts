import { rotationSpacingMs, type Environment } from '@embedded-dashboard/protocol';
import { BffError } from '../errors/bff-error.js';
import { isAmbiguousFailure, isRefusal } from '../errors/upstream-error.js';
import { describeError, type BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import type { GroupEntry } from '../store/types.js';
import type { AccountEnvironment } from './account-environment.js';
import { BusyError, type HeldEntry } from './fleet-lock.js';
import type { GroupEntries } from './group-entries.js';
import type { ResolvedGroup } from './resolved-group.js';
import type { UserGroupUpstream } from './upstream.js';
import type { VendorCalls } from './vendor-calls.js';

export interface RotationSettings {
  /** The cap of the spacing of renewals (`minRotationIntervalSeconds`); the protocol's rule shortens it for short lifetimes. */
  minRotationIntervalMs: number;
  /** The lifetime of a customer token (`expiresAt` - first sight); 0: it never expires. */
  tokenTtlSeconds: number;
  now: () => number;
}

/**
 * The 429 for a token renewed inside the minimum spacing of renewals (`what` names it: "this
 * token was rotated"), with the seconds left as `Retry-After`; `undefined` once it is over. The
 * spacing is the protocol's `rotationSpacingMs` of the token's lifetime (`null`: it never
 * expires), the rule the element's schedule follows too: a scheduled renewal is never inside it.
 * Every vendor's renewal throttles the same way.
 */
export function rotationThrottle(
  what: string,
  lastRotatedAt: number,
  lifetimeMs: number | null,
  settings: Pick<RotationSettings, 'minRotationIntervalMs' | 'now'>,
): BffError | undefined {
  const leftMs = lastRotatedAt + rotationSpacingMs(lifetimeMs, settings.minRotationIntervalMs) - settings.now();
  if (leftMs <= 0) return undefined;
  return new BffError('rate_limited', `${what} moments ago; retry after the minimum rotation interval`, {
    retryAfterSeconds: Math.max(1, Math.ceil(leftMs / 1000)),
    refusal: 'rotation_throttle',
  });
}

/** How a rotation request ended, as counted in `rotations_total{result}`. */
type RotationOutcome = { result: 'rotated' | 'recovered' | 'current'; entry: GroupEntry } | { result: 'throttled' | 'refused' | 'busy'; error: BffError };

/** A new token from the vendor: rotated, or (after an ambiguous failure) recovered with get-or-create. */
interface VendorRotation {
  result: 'rotated' | 'recovered';
  token: string;
  /** The environment the vendor stated; `null` when it said nothing (get-or-create never does). */
  environment: Environment | null;
}

/**
 * Rotation of a group's token (`POST /embed/token/rotate`), safe and idempotent: only the
 * caller's own group's current token is rotated at the vendor, once per group at a time across
 * processes (the store lock `rotate:<key>`) and at most once per minimum interval; any other
 * token is answered with the current one.
 */
export class TokenRotation {
  readonly #upstream: UserGroupUpstream;
  readonly #entries: GroupEntries;
  readonly #calls: VendorCalls;
  readonly #environment: AccountEnvironment;
  readonly #logger: BffLogger;
  readonly #metrics: BffMetrics;
  readonly #s: RotationSettings;
  readonly #inFlight = new Map<string, Promise<GroupEntry>>();

  constructor(
    upstream: UserGroupUpstream,
    entries: GroupEntries,
    calls: VendorCalls,
    environment: AccountEnvironment,
    logger: BffLogger,
    metrics: BffMetrics,
    settings: RotationSettings,
  ) {
    this.#upstream = upstream;
    this.#entries = entries;
    this.#calls = calls;
    this.#environment = environment;
    this.#logger = logger;
    this.#metrics = metrics;
    this.#s = settings;
  }

  /** The entry to answer a holder of `presented` with, given the group's current `entry`. */
  async rotate(group: ResolvedGroup, entry: GroupEntry, presented: string): Promise<GroupEntry> {
    const answered = this.#answerWithoutRotating(entry, presented);
    if (answered !== undefined) return this.#settle(answered);
    let pending = this.#inFlight.get(group.key);
    if (pending === undefined) {
      pending = this.#rotateLocked(group, entry)
        .then((outcome) => this.#settle(outcome))
        .finally(() => this.#inFlight.delete(group.key));
      this.#inFlight.set(group.key, pending);
    }
    return pending;
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
    const ttl = this.#s.tokenTtlSeconds;
    const error = rotationThrottle('this token was rotated', entry.lastRotatedAt, ttl === 0 ? null : ttl * 1000, this.#s);
    return error === undefined ? undefined : { result: 'throttled', error };
  }

  /** The one place rotation outcomes are counted (`rotations_total{result}`): the entry to answer, or the error to throw. */
  #settle(outcome: RotationOutcome): GroupEntry {
    this.#metrics.rotations.labels(outcome.result).inc();
    if ('error' in outcome) throw outcome.error;
    return outcome.entry;
  }

  /**
   * One rotation of the group's token at a time across processes: the store lock `rotate:<key>`.
   * Another process rotating it hands out what it produces; a waiter whose wait is over answers
   * 503 (retry), never the token it was shown: its holder presents it because the vendor refused it.
   */
  async #rotateLocked(group: ResolvedGroup, seen: GroupEntry): Promise<RotationOutcome> {
    const rotate = async (held: HeldEntry): Promise<RotationOutcome> => {
      const current = (await held.read()) ?? seen;
      // Re-checked under the lock: the entry read before it may be out of date.
      return this.#answerWithoutRotating(current, seen.token) ?? (await this.#rotateUpstream(group, current, held));
    };
    try {
      const outcome = await this.#entries.exclusive(`rotate:${group.key}`, group.key, (e) => e.token !== seen.token, rotate, "rotating this customer's token");
      return 'result' in outcome ? outcome : { result: 'current', entry: outcome };
    } catch (error) {
      if (error instanceof BusyError) return { result: 'busy', error };
      throw error;
    }
  }

  /** Rotates `current.token` at the vendor and stores the new token as current, the presented one as previous. */
  async #rotateUpstream(group: ResolvedGroup, current: GroupEntry, held: HeldEntry): Promise<RotationOutcome> {
    const presented = current.token;
    const rotated = await this.#vendorRotation(group, presented);
    if (rotated === 'other group') {
      // Revalidate on the next request: get-or-create names this group's real token.
      await held.write({ ...current, syncedAt: 0 });
      return { result: 'refused', error: this.#rotatedOtherGroup(group) };
    }
    const environment = rotated.environment ?? current.environment;
    this.#environment.check(environment);
    const now = this.#s.now();
    const next: GroupEntry = { ...current, token: rotated.token, environment, firstSeenAt: now, previousToken: presented, lastRotatedAt: now };
    await held.write(next);
    return { result: rotated.result, entry: next };
  }

  /**
   * The vendor's rotation of `presented`. Rotate is never retried: when its outcome is unknown
   * (no answer, an unreadable one, a 5xx), get-or-create tells which token is current. So it does
   * when the vendor refuses the token (a 4xx, `success: 0`): the token may no longer be current
   * because it was rotated already (by another process while the store was away, by a process
   * that died before it stored the new token): that rotation lost its race, and is repaired with
   * the token the vendor names, not answered with a 502. Only a refusal of the current token
   * itself is the vendor's answer to pass on.
   */
  async #vendorRotation(group: ResolvedGroup, presented: string): Promise<VendorRotation | 'other group'> {
    try {
      const { user_group } = await this.#calls.call(group.key, 'rotate', 'rotation', () => this.#upstream.rotateUserGroupToken(presented));
      if (user_group.provided_id !== group.group.user_group_id) return 'other group';
      return { result: 'rotated', token: user_group.token, environment: this.#environment.note(user_group.api_environment_tag) };
    } catch (error) {
      if (!(error instanceof BffError) || !(isAmbiguousFailure(error.cause) || isRefusal(error.cause))) throw error;
      if (isAmbiguousFailure(error.cause)) this.#logger.warn('rotation outcome unknown: re-reading the current token', { error: describeError(error.cause) });
      else this.#logger.info('rotation refused: re-reading the current token', { error: describeError(error.cause) });
      const got = await this.#calls.call(group.key, 'getOrCreate', 'rotation', () => this.#upstream.getOrCreateUserGroup(group.group));
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
}
