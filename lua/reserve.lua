-- reserve.lua: reserve stock for one shopper and enqueue the order, atomically.
-- Deduct and enqueue happen in this one script, so there is no moment at which
-- stock is gone and the order exists nowhere.
--
-- KEYS[1] stock   integer, available stock
-- KEYS[2] meta    hash: starts_ms, ends_ms, limit
-- KEYS[3] buyers  hash: user id -> "orderID:quantity:createdMs"
-- KEYS[4] idem    hash: user id .. "\n" .. idempotency key -> same value as buyers
-- KEYS[5] stream  stream of orders to persist
-- ARGV[1] now, unix milliseconds, from the server's (injectable) clock
-- ARGV[2] user id
-- ARGV[3] quantity, integer >= 1
-- ARGV[4] order id (ULID) to use if the reservation succeeds
-- ARGV[5] idempotency key, "" for none
-- ARGV[6] item id, copied into the stream entry
--
-- Returns {code, detail, stock}:
--   0 OK               detail = new buyer value, stock = stock left
--   1 REPLAY           detail = value first stored under this idempotency key
--   2 NOT_WARMED       meta is missing: the sale is unknown to Redis
--   3 NOT_STARTED      detail = starts_ms
--   4 ENDED            detail = ends_ms
--   5 OVER_LIMIT       detail = per-user limit
--   6 ALREADY          detail = the shopper's existing buyer value
--   7 SOLD_OUT         stock = stock left (may be > 0 but below quantity)
local now = tonumber(ARGV[1])
local user = ARGV[2]
local qty = tonumber(ARGV[3])

local meta = redis.call('HMGET', KEYS[2], 'starts_ms', 'ends_ms', 'limit')
if not meta[1] then
  return {2, '', 0}
end

local idemField = ''
if ARGV[5] ~= '' then
  idemField = user .. '\n' .. ARGV[5]
  local first = redis.call('HGET', KEYS[4], idemField)
  if first then
    return {1, first, 0}
  end
end

if now < tonumber(meta[1]) then
  return {3, meta[1], 0}
end
if now >= tonumber(meta[2]) then
  return {4, meta[2], 0}
end
if qty > tonumber(meta[3]) then
  return {5, meta[3], 0}
end

local existing = redis.call('HGET', KEYS[3], user)
if existing then
  return {6, existing, 0}
end

local left = redis.call('DECRBY', KEYS[1], qty)
if left < 0 then
  -- Undo our own decrement: stock never stays below zero.
  left = redis.call('INCRBY', KEYS[1], qty)
  return {7, '', left}
end

local value = ARGV[4] .. ':' .. qty .. ':' .. now
redis.call('HSET', KEYS[3], user, value)
if idemField ~= '' then
  redis.call('HSET', KEYS[4], idemField, value)
end
redis.call('XADD', KEYS[5], '*',
  'id', ARGV[4], 'item', ARGV[6], 'user', user, 'qty', qty,
  'idem', ARGV[5], 'ts', now)
return {0, value, left}
