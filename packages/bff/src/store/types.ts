import type { Environment } from '@embedded-dashboard/protocol';
import type { BudgetDecision, BudgetRequest } from '../vendor-budget/reservation.js';

/**
 * What the BFF remembers about one user group. Keyed by the group's key (environment-scoped
 * `user_group_id`), never by anything the browser sends.
 */
export interface GroupEntry {
  /** The group's current user group token. */
  token: string;
  /** Epoch ms when this BFF fleet first saw `token`; `expiresAt` = firstSeenAt + token TTL. */
  firstSeenAt: number;
  /** Fingerprint of the group input (name, properties, mapping) last synced to the vendor. */
  fingerprint: string;
  /** The token before the last rotation, so a stale holder is answered with the current one. */
  previousToken: string | null;
  /** The vendor's environment tag for the group, when the vendor said. */
  environment: Environment | null;
  /** Epoch ms of the last get-or-create/update that confirmed this entry (revalidation clock). */
  syncedAt: number;
  /** Epoch ms of the last upstream rotation, for the per-group minimum interval. */
  lastRotatedAt: number | null;
  /**
   * `iat` (epoch ms) of the session whose claims were last synced: a session issued earlier does
   * not rewrite the group (see `DriftPolicy`). Absent in entries written before it existed.
   */
  claimsIssuedAt?: number;
  /**
   * The vendor account (`UserGroupUpstream.accountId`) the token belongs to. A BFF reading an
   * entry of another account treats it as a miss. Absent in entries written before it existed.
   */
  account?: string;
}

/** An exclusive lock a caller holds until it releases it or its time-to-live runs out. */
export interface LockHandle {
  /** Releases the lock if this holder still owns it (a lock that expired and was re-taken is not touched). */
  release(): Promise<void>;
  /**
   * Optional: gives the lock `ttlMs` more from now if this holder still owns it; resolves whether
   * it did. The BFF renews its locks every third of their lifetime while it works, so a short
   * lifetime bounds how long a holder that died blocks its group. A store without it keeps a lock
   * for the lifetime it was taken with (give such a store a `lockTtlMs` longer than any holder works).
   */
  extend?(ttlMs: number): Promise<boolean>;
}

/** A fixed-window counter's state after one hit. */
export interface WindowCount {
  count: number;
  resetInMs: number;
}

/**
 * Where the BFF keeps group entries, locks and rate-limit counters. Every method is
 * asynchronous so a store can be shared by several processes (Redis); single-flight and the
 * rotation lock are built on `tryLock`, so they hold across every process sharing the store.
 * A method that cannot reach its backend rejects; the BFF then degrades (straight to the vendor).
 * Every implementation passes the one contract suite, `describeStoreContract` in
 * `packages/bff/test/support/store-contract/` (a new operation gets its cases in its group's file
 * there, and every store passes them).
 */
export interface TokenStore {
  get(groupKey: string): Promise<GroupEntry | undefined>;
  /** Stores the entry; it disappears after `ttlMs`. */
  set(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<void>;
  delete(groupKey: string): Promise<void>;
  /**
   * Optional: stores the entry only where the store holds none for the key (Redis `SET NX`);
   * resolves whether it did. Used to hand the shared store what a process synced while the store
   * was failing, without ever replacing what another process wrote meanwhile.
   */
  setIfAbsent?(groupKey: string, entry: GroupEntry, ttlMs: number): Promise<boolean>;
  /**
   * Optional: stores the entry where the store holds none for the key, or holds one whose token
   * is among `superseded` (tokens the writer knows were rotated away); resolves whether it did.
   * One atomic step (a Lua script on the one key in Redis). Used when the store answers again
   * after a failure: a rotation a process made meanwhile replaces the older entry the store kept
   * (Redis resumed, or restarted from its append-only file), and never an entry another process
   * wrote meanwhile (whose token is not one this process saw rotated away).
   */
  setIfAbsentOrSuperseded?(groupKey: string, entry: GroupEntry, ttlMs: number, superseded: readonly string[]): Promise<boolean>;
  /** Takes the lock `name` for `ttlMs`, or resolves `undefined` at once if another holder has it. */
  tryLock(name: string, ttlMs: number): Promise<LockHandle | undefined>;
  /** Counts one hit on `key` in a fixed window of `windowMs` and returns the window's count. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  /** Resolves when the backend answers; rejects when it does not (used by `/readyz`). */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Optional, for a store in this process's memory: `get` answered synchronously. A store that
   * has it (with `hitNow`) lets the BFF answer a returning caller without awaiting, and is trusted
   * never to hang (its calls run without a deadline). A shared store (Redis) leaves both out, so
   * every read goes to it and another process's rotation is always seen.
   */
  peek?(groupKey: string): GroupEntry | undefined;
  /** Optional, with `peek`: `hit` answered synchronously. */
  hitNow?(key: string, windowMs: number): WindowCount;
  /**
   * Optional: one step of the vendor budget kept under `key` (vendor-budget/reservation.ts), atomic
   * across every process sharing the store. A store without it gets a budget per process.
   */
  reserveBudget?(key: string, request: BudgetRequest): Promise<BudgetDecision>;
}
