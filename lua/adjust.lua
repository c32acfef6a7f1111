-- adjust.lua: add delta (possibly negative) to available stock, refusing any
-- change that would leave it below zero, i.e. take back stock already sold.
--
-- KEYS[1] stock   integer, available stock
-- KEYS[2] returns integer, counts the times stock came back (see reserve.lua)
-- ARGV[1] delta   integer
--
-- Returns {code, stock, returns}: 0 applied, stock = new stock; 1 refused,
-- stock = current stock; 2 not warmed (key missing), stock = 0. returns is
-- the new count of returns when stock was added, else 0.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return {2, 0, 0}
end
local current = tonumber(redis.call('GET', KEYS[1]))
local delta = tonumber(ARGV[1])
if current + delta < 0 then
  return {1, current, 0}
end
local left = redis.call('INCRBY', KEYS[1], delta)
if delta > 0 then
  return {0, left, redis.call('INCR', KEYS[2])}
end
return {0, left, 0}
