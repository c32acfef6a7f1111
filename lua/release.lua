-- release.lua: give one reservation's stock back and forget the buyer, so the
-- shopper may buy again. Idempotent: releasing twice, or releasing an order
-- that is not the shopper's current one, changes nothing.
--
-- KEYS[1] stock   integer, available stock
-- KEYS[2] buyers  hash: user id -> "orderID:quantity:createdMs"
-- ARGV[1] user id
-- ARGV[2] order id
--
-- Returns {released, stock}: released is 1 if stock was returned, 0 if there
-- was nothing to release; stock is the stock left afterwards (-1 if unknown).
local value = redis.call('HGET', KEYS[2], ARGV[1])
if not value then
  return {0, -1}
end
local id, qty = string.match(value, '^([^:]+):(%d+):')
if id ~= ARGV[2] then
  return {0, -1}
end
redis.call('HDEL', KEYS[2], ARGV[1])
if redis.call('EXISTS', KEYS[1]) == 0 then
  -- Not warmed (or lost): the next warm computes stock from MySQL.
  return {1, -1}
end
return {1, redis.call('INCRBY', KEYS[1], tonumber(qty))}
