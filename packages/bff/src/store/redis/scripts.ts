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

/** KEYS[1] lock, ARGV[1] owner, ARGV[2] ttl ms. Renews the lock only while it still holds this owner's value. */
export const EXTEND_LOCK_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
`;

/**
 * KEYS[1] a group entry, ARGV[1] the new entry (encoded), ARGV[2] its ttl ms, ARGV[3..] the
 * superseded tokens. Stores the entry where the key holds nothing that reads as an entry, or an
 * entry whose token is superseded; returns 1 if it did, else 0. The token is read from the
 * envelope `encodeEntry` writes (`{"v":1,"e":{"token":…}}`); a value of another type under the
 * key (some other program's hash) is left alone.
 */
export const SET_IF_ABSENT_OR_SUPERSEDED_SCRIPT = `
local stored = redis.pcall('GET', KEYS[1])
if type(stored) == 'table' and stored.err then return 0 end
if stored then
  local ok, decoded = pcall(cjson.decode, stored)
  local token = ok and type(decoded) == 'table' and type(decoded.e) == 'table' and decoded.e.token
  if type(token) == 'string' then
    local superseded = false
    for i = 3, #ARGV do
      if ARGV[i] == token then superseded = true end
    end
    if not superseded then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
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

/**
 * KEYS[1] the budget's `tat` (ms), ARGV: intervalMs, burstMs, maxLatenessMs, pauseMs (`-1` for
 * none), ttlMs (kept this long after `tat`), floorMs (`''` for none), debtCalls, maxDebtMs. The
 * same steps as `reserve` in vendor-budget/reservation.ts, on Redis's clock (`TIME`), so BFF processes
 * whose clocks disagree still share one budget. Returns { admitted 1|0, ms, aheadMs }: the wait
 * when admitted, else the ms until a call would be; and how far `tat` is ahead of now after it.
 */
export const BUDGET_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local interval = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local maxLateness = tonumber(ARGV[3])
local pause = tonumber(ARGV[4])
local ttl = tonumber(ARGV[5])
local floor = tonumber(ARGV[6])
local debt = tonumber(ARGV[7])
local maxDebt = tonumber(ARGV[8])
local stored = redis.pcall('GET', KEYS[1])
local tat = tonumber(type(stored) == 'string' and stored or '') or 0
local from = math.max(tat, now)
if floor then from = math.max(from, now + floor) end
if debt > 0 then from = math.max(from, math.min(from + debt * interval, now + burst + maxDebt)) end
local function keep(value)
  redis.call('SET', KEYS[1], string.format('%.3f', value), 'PX', math.ceil(value - now + ttl))
  return math.max(0, math.ceil(value - now))
end
if pause >= 0 then
  local paused = math.max(from, now + pause + burst - interval)
  return {0, pause, keep(paused)}
end
local nextTat = from + interval
local lateness = nextTat - burst - now
if lateness > maxLateness then
  local ahead = math.max(0, math.ceil(from - now))
  if from > tat then ahead = keep(from) end
  return {0, math.max(1, math.ceil(lateness - math.max(0, maxLateness))), ahead}
end
return {1, math.max(0, math.ceil(lateness)), keep(nextTat)}
`;
