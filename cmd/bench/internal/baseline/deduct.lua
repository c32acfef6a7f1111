-- deduct.lua: the floor baseline's one Redis step per purchase, the least a
-- flash sale can do: take stock, and give it back if that went below zero.
--
-- KEYS[1] stock   integer, available stock
-- ARGV[1] quantity, integer >= 1
--
-- Returns the stock left, or -1 when there was not enough (nothing taken).
local left = redis.call('DECRBY', KEYS[1], ARGV[1])
if left < 0 then
  redis.call('INCRBY', KEYS[1], ARGV[1])
  return -1
end
return left
