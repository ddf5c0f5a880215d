import type { TokenRequest, TokenResponse } from '@embedded-dashboard/protocol';
import type { Caller } from '../caller/caller.js';
import type { GroupEntries } from '../customer-token/group-entries.js';
import type { GuardedStore } from '../customer-token/guarded-store.js';
import type { VendorCalls } from '../customer-token/vendor-calls.js';
import type { BffLogger } from '../observability/logger.js';
import type { BffMetrics } from '../observability/metrics.js';
import type { ClaimsToGroup } from '../session/session-verifier.js';
import type { MaybePromise } from '../util/maybe-promise.js';

/*
 * The vendor seam (ARCHITECTURE §2.1, §3.1): what a signed-in session becomes at a vendor. The
 * route, session check, origin guard, rate limit, request deadline, store, breaker, budget,
 * metrics and logs are the BFF's and shared; a vendor is a factory (`explo/`, `superset/`, …)
 * returning one small object, so the core never asks which vendor it holds.
 */

/** A vendor as the token routes use it: a token for a caller and the scope its page asked for. */
export interface VendorAdapter {
  /** `explo`, `superset`, …: for logs and metrics. */
  readonly name: string;
  /**
   * The dashboards this vendor's tokens may name (`EMBED_DASHBOARDS`), when it has a list: the
   * only dashboard label values of the timings metrics. `undefined`: any dashboard (Explo's
   * customer tokens), so the timings need `timings.dashboards`.
   */
  readonly dashboards?: ReadonlySet<string> | undefined;
  /** Optional: refuses a scope this vendor never serves (400), before the session is looked at. */
  checkScope?(scope: TokenRequest): void;
  /** `POST /token`: a token for `caller` and `scope`, for a page of `pageOrigin`. */
  token(caller: Caller, scope: TokenRequest, pageOrigin: string | undefined): MaybePromise<TokenResponse>;
  /** `POST /token/rotate`: a token for the holder of `presented`, which is due or was refused. */
  renew(caller: Caller, scope: TokenRequest, pageOrigin: string | undefined, presented: string): MaybePromise<TokenResponse>;
}

/** The shared layers a vendor's adapter is built on; the runtime makes them once. */
export interface VendorContext {
  /** The store with its deadline and health (memory, Redis, Durable Objects). */
  store: GuardedStore;
  /** Account-scoped entries and the fleet lock: one process at a time works on a key. */
  entries: GroupEntries;
  /** Every vendor call goes through it: circuit breaker, vendor budget, timing, error mapping. */
  calls: VendorCalls;
  logger: BffLogger;
  metrics: BffMetrics;
  /** Prefix of every store key (deployments sharing a store stay apart). */
  keyPrefix: string;
  /** Epoch ms. */
  now: () => number;
  /** The cap of the spacing of renewals of one token (else 429); `rotationThrottle` shortens it to the token's lifetime. */
  minRotationIntervalMs: number;
}

/**
 * A vendor, as `createBffApp({ vendor })` takes it: `supersetVendor({...})` from
 * `@embedded-dashboard/bff/superset`. Without `vendor` the BFF is Explo's, from `upstream` and
 * `embedToken` as before.
 */
export interface BffVendor {
  readonly name: string;
  /**
   * A short, non-secret id of the vendor account the adapter acts as (store keys and entries
   * are scoped to it, so deployments of different accounts sharing a store stay apart).
   */
  readonly accountId?: string;
  /** Secrets the adapter holds (a password, a signing secret): redacted from every log line. */
  readonly secrets?: readonly string[];
  /** How a session's claims name its customer; default Explo's group input (`org_id`, `org_name`, `embed_properties`). */
  readonly toGroup?: ClaimsToGroup;
  /**
   * The lifetime in seconds of the tokens the adapter hands out (the shortest, when they differ),
   * from which the default per-session rotate limit comes (`rateLimit`). Absent: not known, the
   * fixed default (12 a minute).
   */
  readonly tokenLifetimeSeconds?: number;
  /** Builds the adapter on the shared layers; throws `TypeError` for a bad option. */
  create(context: VendorContext): VendorAdapter;
}
