import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisStoreError } from '../store/redis/errors.js';
import { failureKind, StoreTimeoutError } from './store-failure.js';

/** As the Redis store rejects: its own error, the client's as the cause. */
const fromRedis = (cause: unknown) => new RedisStoreError('unavailable', 'Redis store tryLock failed', { cause });

describe('failureKind: a store that answered with an error is not a store that cannot be reached', () => {
  it.each([
    "READONLY You can't write against a read only replica.",
    'LOADING Redis is loading the dataset in memory',
    'BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.',
    'TRYAGAIN Multiple keys request during rehashing of slot',
    "OOM command not allowed when used memory > 'maxmemory'.",
    'MOVED 3999 127.0.0.1:6381',
  ])('an error reply (%s) is an answer', (message) => {
    expect(failureKind(fromRedis(new ReplyError(message)))).toBe('reply');
  });

  it('a reply named as the last error of too many cluster redirections is an answer; a closed connection there is not', () => {
    expect(
      failureKind(fromRedis(new Error('Too many Cluster redirections. Last error: ReplyError: TRYAGAIN Multiple keys request during rehashing of slot'))),
    ).toBe('reply');
    expect(failureKind(fromRedis(new Error('Too many Cluster redirections. Last error: Error: Connection is closed.')))).toBe('connection');
  });

  it("a missed deadline (the BFF's, or the Redis store's own) is a timeout", () => {
    expect(failureKind(new StoreTimeoutError('store get did not answer within 1000 ms'))).toBe('timeout');
    expect(failureKind(fromRedis(new Error('no answer within 1000 ms')))).toBe('timeout');
  });

  it.each([
    ['not connected', new RedisStoreError('unavailable', 'Redis store get: Redis is not connected')],
    ['closed', new RedisStoreError('closed', 'Redis store get: the store is closed')],
    ['connection closed', fromRedis(new Error('Connection is closed.'))],
    ['refused', fromRedis(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6379'), { code: 'ECONNREFUSED' }))],
    ['reset', fromRedis(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }))],
    ['max retries', fromRedis(Object.assign(new Error('Reached the max retries per request limit (which is 1).'), { name: 'MaxRetriesPerRequestError' }))],
    ['unknown shape', 'down'],
    // The cluster serves the slot to no process (a master with no replica died): nobody can hold a lock there.
    ['CLUSTERDOWN', fromRedis(new ReplyError('CLUSTERDOWN The cluster is down'))],
    ['CLUSTERDOWN after redirections', fromRedis(new Error('Too many Cluster redirections. Last error: ReplyError: CLUSTERDOWN Hash slot not served'))],
  ])('a connection failure (%s) is one', (_what, error) => {
    expect(failureKind(error)).toBe('connection');
  });
});
