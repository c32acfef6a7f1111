-- adjust.lua: add delta (possibly negative) to a variant's available stock,
-- and the sale's with it, refusing any change that would leave the variant's
-- below zero, i.e. take back stock already sold.
--
-- KEYS[1] stock   integer, available stock of the sale (see reserve.lua)
-- KEYS[2] returns integer, counts the times stock came back (see reserve.lua)
-- KEYS[3] vstock  hash: variant id -> its available stock
-- ARGV[1] delta   integer
-- ARGV[2] variant id
--
-- Returns {code, stock, returns, saleStock}: 0 applied, stock = the
-- variant's new stock; 1 refused, stock = its current stock; 2 not warmed
-- (the sale or the variant is missing), stock = 0; 3 malformed arguments
-- (delta or variant id not a whole number: the script trusts no caller),
-- stock = 0. returns is the new count
-- of returns when stock was added, else 0; saleStock is the sale's stock
-- after an applied change, else 0.

-- A whole number: a plain decimal, an optional sign and at most 15 digits,
-- which a Lua double holds exactly (2^53 has 16).
local function whole(s)
  local digits = type(s) == 'string' and string.match(s, '^-?(%d+)$')
  return digits and #digits <= 15 or false
end
if not (whole(ARGV[1]) and whole(ARGV[2])) then
  return {3, 0, 0, 0}
end

local current = redis.call('HGET', KEYS[3], ARGV[2])
if redis.call('EXISTS', KEYS[1]) == 0 or not current then
  return {2, 0, 0, 0}
end
current = tonumber(current)
local delta = tonumber(ARGV[1])
if current + delta < 0 then
  return {1, current, 0, 0}
end
local left = redis.call('HINCRBY', KEYS[3], ARGV[2], delta)
local saleLeft = redis.call('INCRBY', KEYS[1], delta)
if delta > 0 then
  return {0, left, redis.call('INCR', KEYS[2]), saleLeft}
end
return {0, left, 0, saleLeft}
