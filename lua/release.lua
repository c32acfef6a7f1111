-- release.lua: forget one reservation's buyer, so the shopper may buy again,
-- and (when asked) give its stock back to its variant. Idempotent: releasing
-- twice, or releasing an order that is not the shopper's current one, changes
-- nothing. Callers restock only orders that are no longer queued in the
-- stream (a queued order would still be persisted and hold the stock in
-- MySQL); they pass restock 0 for orders MySQL refused, whose stock never
-- existed there. The idempotency entry is kept: a replay of the key answers
-- the first order.
--
-- KEYS[1] stock   integer, available stock of the sale (see reserve.lua)
-- KEYS[2] buyers  hash: user id -> "orderID:quantity:createdMs:variantID[:price]"
-- KEYS[3] returns integer, counts the times stock came back (see reserve.lua)
-- KEYS[4] vstock  hash: variant id -> its available stock
-- ARGV[1] user id
-- ARGV[2] order id
-- ARGV[3] restock: "1" to give the stock back, "0" to only forget the buyer
-- ARGV[4] variant id of the order
--
-- Returns {released, stock, returns}: released is 1 if the buyer was
-- forgotten, 0 if there was nothing to release, -1 if the arguments are
-- malformed (nothing changed: the script trusts no caller); stock is the sale's stock
-- left afterwards (-1 if unknown or not restocked); returns is the new count
-- of returns when stock came back, else 0.

-- A whole number: a plain decimal, an optional sign and at most 15 digits,
-- which a Lua double holds exactly (2^53 has 16).
local function whole(s)
  local digits = type(s) == 'string' and string.match(s, '^-?(%d+)$')
  return digits and #digits <= 15 or false
end
if ARGV[1] == '' or ARGV[2] == '' or (ARGV[3] ~= '0' and ARGV[3] ~= '1') or not whole(ARGV[4]) then
  return {-1, -1, 0}
end

local value = redis.call('HGET', KEYS[2], ARGV[1])
if not value then
  return {0, -1, 0}
end
local id, qty = string.match(value, '^([^:]+):(%d+):')
if id ~= ARGV[2] then
  return {0, -1, 0}
end
redis.call('HDEL', KEYS[2], ARGV[1])
if ARGV[3] ~= '1' or redis.call('EXISTS', KEYS[1]) == 0 or not redis.call('HGET', KEYS[4], ARGV[4]) then
  -- Not restocking, or not warm (the next warm computes stock from MySQL).
  return {1, -1, 0}
end
redis.call('HINCRBY', KEYS[4], ARGV[4], tonumber(qty))
local left = redis.call('INCRBY', KEYS[1], tonumber(qty))
return {1, left, redis.call('INCR', KEYS[3])}
