/**
 * Lua scripts: each runs atomically on the server, so no other client can act between its
 * commands (a GET-then-DEL from the client could delete a lock someone else took in between).
 */

/** KEYS[1] lock, ARGV[1] owner. Deletes the lock only while it still holds this owner's value. */
export const RELEASE_LOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
`;

/**
 * KEYS[1] counter, ARGV[1] window ms. Fixed window: the first hit starts the window's expiry and
 * later hits leave it alone (the PTTL check is PEXPIRE NX, which Redis < 7 lacks). A counter
 * without an expiry or a value that is not a counter (left by some other program) would
 * otherwise count forever, so it starts a fresh window. Returns { count, ms until reset }.
 */
export const HIT_SCRIPT = `
local window = tonumber(ARGV[1])
local count = redis.pcall('INCR', KEYS[1])
if type(count) == 'table' then
  redis.call('SET', KEYS[1], 1, 'PX', window)
  return {1, window}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], window)
  ttl = window
end
return {count, ttl}
`;
