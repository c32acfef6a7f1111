-- room.lua: the virtual waiting room of one sale, in one atomic step. A
-- shopper joins or looks, or a server ticks; every call first lets the room
-- admit whoever is due, so the queue moves as long as anyone asks, and every
-- server instance sees the same queue.
--
-- Queue order: the early joiners (before the opening) by a random score
-- ascending, then the late joiners (after it) by join sequence. The score is
-- drawn by the server, kept secret and set once (ZADD NX), so arriving early
-- or rejoining gains nothing: the pre-queue is shuffled at the opening. A
-- shopper's position (0-based index in that order) is fixed from the opening
-- on: early joins stop, late joins only append, nobody is removed. The room
-- counts as open from the first call whose clock saw the opening (it writes
-- the state hash), whatever the clock of a later caller: a server whose clock
-- lags must not slip an early joiner in ahead of shoppers already admitted.
--
-- Admission: one shopper per interval from the opening, in queue order,
-- never more at once than the credits due since next_us; credits nobody could
-- use are dropped, not banked. Nobody is admitted twice (HSETNX on the
-- admitted hash), whatever happens to ranks. Nor are more shoppers holding a chance to buy
-- at once than the stock left can serve at the per-shopper limit; an
-- admission stops holding one when its window expires (or when the purchase
-- path removes it from holding).
--
-- KEYS[1] stock     integer, available stock
-- KEYS[2] meta      hash: starts_ms, ends_ms, limit (units per shopper),
--                   paused ("1" while an admin has the sale paused: shoppers
--                   still join and keep their places, nobody is admitted, and
--                   the credits of the pause are dropped, not banked)
-- KEYS[3] early     zset: user id -> secret random score
-- KEYS[4] late      zset: user id -> join sequence
-- KEYS[5] seq       counter of late joins
-- KEYS[6] state     hash: n (shoppers admitted from the head of the queue),
--                   next_us (unix µs of the next admission credit; the
--                   opening when absent)
-- KEYS[7] admitted  hash: user id -> admission time, unix µs (everyone ever)
-- KEYS[8] holding   zset: user id -> admission time, unix µs (window open)
-- ARGV[1] now, unix µs (the server's injectable clock)
-- ARGV[2] op: "join", "look" or "tick"
-- ARGV[3] user id ("" for tick)
-- ARGV[4] score for a join: random integer in [0, 2^53)
-- ARGV[5] interval: µs per admission (1e6 / rate), integer >= 1
-- ARGV[6] window: µs an admitted shopper has to buy, integer >= 1
--
-- A malformed argument is an error reply (ERR room.lua: ...), nothing changed.
--
-- Returns {code, n, early, late, stock, holding, next_us, where, position,
-- admitted_at, paused}, all integers: early, late, holding are the sets' sizes;
-- where is 1 (early), 2 (late) or 0 (not in the room); position is -1 before
-- the opening (not drawn yet) or when not in the room; admitted_at is 0 if
-- never admitted. Codes:
--   0 OK           the sale is open; a join joined unless sold out
--   1 NOT_WARMED   meta or stock is missing: the sale is unknown to Redis
--                  (every other value is 0, position -1)
--   2 ENDED        now >= ends: nobody joins or is admitted any more
--   3 NOT_STARTED  before the opening: joins go to the pre-queue, nobody is
--                  admitted yet
local now = tonumber(ARGV[1])
local op, user, score = ARGV[2], ARGV[3], ARGV[4]
local interval, window = tonumber(ARGV[5]), tonumber(ARGV[6])

if op ~= 'join' and op ~= 'look' and op ~= 'tick' then
  return redis.error_reply('ERR room.lua: unknown op ' .. tostring(op))
end
-- The script trusts no caller: whole numbers are plain decimals.
local function whole(s)
  return type(s) == 'string' and #s <= 16 and string.match(s, '^%d+$') ~= nil
end
if not (whole(ARGV[1]) and whole(ARGV[4]) and whole(ARGV[5]) and whole(ARGV[6])) or interval < 1 or window < 1 then
  return redis.error_reply('ERR room.lua: now, score, interval and window must be whole numbers, interval and window >= 1')
end
if op == 'join' and user == '' then
  return redis.error_reply('ERR room.lua: a join needs a user id')
end

local meta = redis.call('HMGET', KEYS[2], 'starts_ms', 'ends_ms', 'limit', 'paused')
local stock = redis.call('GET', KEYS[1])
if not (meta[1] and meta[2] and meta[3] and stock) then
  return {1, 0, 0, 0, 0, 0, 0, 0, -1, 0, 0}
end
stock = tonumber(stock)
local starts, ends = tonumber(meta[1]) * 1000, tonumber(meta[2]) * 1000
local limit = math.max(tonumber(meta[3]), 1)
local paused = meta[4] == '1'
local state = redis.call('HMGET', KEYS[6], 'n', 'next_us')
local opened, ended = now >= starts or state[1] ~= false, now >= ends

-- Lua numbers are doubles: integers below 2^53 (µs timestamps are about
-- 2^51) are exact, but Lua prints only 14 digits and Redis versions differ
-- in how they print numbers passed to redis.call, so every computed number
-- goes to Redis through int().
local function int(x)
  return string.format('%.0f', x)
end

-- floor(a / b) for integers a >= 0, b >= 1: the double division may round
-- up to the next integer, so the quotient is checked by multiplying back.
local function idiv(a, b)
  local q = math.floor(a / b)
  if q * b > a then
    q = q - 1
  elseif (q + 1) * b <= a then
    q = q + 1
  end
  return q
end

-- find returns where the user queues (1 early, 2 late, 0 nowhere) and the
-- rank within that set.
local function find()
  if user == '' then
    return 0, -1
  end
  local r = redis.call('ZRANK', KEYS[3], user)
  if r then
    return 1, r
  end
  r = redis.call('ZRANK', KEYS[4], user)
  if r then
    return 2, r
  end
  return 0, -1
end

local function join()
  if user == '' or find() ~= 0 then
    return
  end
  if not opened then
    redis.call('ZADD', KEYS[3], 'NX', score, user)
  elseif stock > 0 then
    redis.call('ZADD', KEYS[4], redis.call('INCR', KEYS[5]), user)
  end
end

-- admit admits the members of one set at ranks from..to (inclusive); an
-- empty range is skipped, as ZRANGE reads negative ranks from the end.
local function admit(key, from, to)
  if from > to then
    return
  end
  for _, u in ipairs(redis.call('ZRANGE', key, from, to)) do
    if redis.call('HSETNX', KEYS[7], u, ARGV[1]) == 1 then
      redis.call('ZADD', KEYS[8], ARGV[1], u)
    end
  end
end

local n = tonumber(state[1]) or 0
local next_us = tonumber(state[2]) or starts

local function advance()
  redis.call('ZREMRANGEBYSCORE', KEYS[8], '-inf', int(now - window))
  local due = 0
  if now >= next_us then
    due = idiv(now - next_us, interval) + 1
  end
  local early = redis.call('ZCARD', KEYS[3])
  local waiting = early + redis.call('ZCARD', KEYS[4]) - n
  local cap = 0
  if stock > 0 then
    cap = math.max(idiv(stock + limit - 1, limit) - redis.call('ZCARD', KEYS[8]), 0)
  end
  local k = math.min(due, waiting, cap)
  admit(KEYS[3], n, math.min(n + k, early) - 1)
  admit(KEYS[4], math.max(n, early) - early, n + k - 1 - early)
  if k == due then
    next_us = next_us + k * interval
  else
    -- Credits nobody could use are dropped: the next admission may come
    -- at once if none was made now, else one interval after this one.
    next_us = now + math.min(k, 1) * interval
  end
  n = n + k
  redis.call('HSET', KEYS[6], 'n', int(n), 'next_us', int(next_us))
end

if not ended then
  if op == 'join' then
    join()
  end
  if opened and paused then
    next_us = math.max(next_us, now)
    redis.call('HSET', KEYS[6], 'n', int(n), 'next_us', int(next_us))
  elseif opened then
    advance()
  end
end

local early = redis.call('ZCARD', KEYS[3])
local where, rank = find()
local position = -1
if opened and where == 1 then
  position = rank
elseif opened and where == 2 then
  position = early + rank
end
local admitted_at = 0
if user ~= '' then
  admitted_at = tonumber(redis.call('HGET', KEYS[7], user) or '0')
end
local code = 0
if ended then
  code = 2
elseif not opened then
  code = 3
end
return {code, n, early, redis.call('ZCARD', KEYS[4]), stock, redis.call('ZCARD', KEYS[8]),
  next_us, where, position, admitted_at, paused and 1 or 0}
