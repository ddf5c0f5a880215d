/** A store call that did not answer within its deadline. */
export class StoreTimeoutError extends Error {
  override name = 'StoreTimeoutError';
}

/**
 * How a store call failed, as `StoreHealth` judges it:
 * - `timeout`: no answer within a deadline (the BFF's own, or the store's command deadline);
 * - `reply`: the store answered with an error (Redis error replies: READONLY during a Sentinel
 *   failover, LOADING, BUSY, TRYAGAIN/ASK/MOVED while slots move, OOM…): it is reachable, and
 *   another process (connected to the new master, say) may hold any lock;
 * - `connection`: the store could not be reached (refused, reset, closed, not connected,
 *   ioredis's `MaxRetriesPerRequestError`, a cluster that could not refresh its slots), or an
 *   error of unknown shape; and CLUSTERDOWN: the cluster itself says no node serves the slot (a
 *   master with no replica died), to this process or any other, so no process can take a lock
 *   there: the local fallback is the only way to serve (ARCHITECTURE §4.2).
 */
export type StoreFailureKind = 'timeout' | 'reply' | 'connection';

/** Redis error replies (first word of the reply) that say the store answered but cannot serve this command now. */
const REPLY = /^ReplyError: /;

/** The cluster serves the slot to no one. */
const CLUSTER_DOWN = /^(?:ReplyError: )?CLUSTERDOWN\b/;

/** The store's own deadline (`RedisStore`: "no answer within N ms"). */
const NO_ANSWER = /^no answer within \d+ ms$/;

/** ioredis after too many cluster redirections names the last node error: a reply there is still a reply. */
const REDIRECTIONS = /^Too many Cluster redirections\. Last error: (.*)$/s;

/** How `error` (and its causes) say the call failed. */
export function failureKind(error: unknown): StoreFailureKind {
  for (let cause = error, depth = 0; cause instanceof Error && depth < 5; cause = cause.cause, depth++) {
    if (cause instanceof StoreTimeoutError || NO_ANSWER.test(cause.message)) return 'timeout';
    if (cause.name === 'ReplyError') return CLUSTER_DOWN.test(cause.message) ? 'connection' : 'reply';
    const last = REDIRECTIONS.exec(cause.message)?.[1];
    if (last !== undefined) return REPLY.test(last) && !CLUSTER_DOWN.test(last) ? 'reply' : 'connection';
  }
  return 'connection';
}
