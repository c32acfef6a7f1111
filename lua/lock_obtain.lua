-- lock_obtain.lua: take a named lock for one owner, or take it again.
-- The lock is a hash {owner, count} with a PEXPIRE, so a holder that dies
-- loses it after ttl. The same owner obtaining again (reentrancy) adds one
-- hold and renews the ttl; any other owner is refused, without waiting.
--
-- KEYS[1] lock   hash: owner -> the holder's token, count -> holds taken
-- ARGV[1] owner token, unique per holder
-- ARGV[2] ttl, milliseconds >= 1
--
-- Returns an integer:
--   n >= 1  OK           the lock is ours with n holds (1 when newly taken)
--   -1      NOT_OURS     another owner holds the lock; nothing changed
--
-- Malformed arguments are an error reply (ERR lock_obtain.lua: ...), nothing changed.
if type(ARGV[1]) ~= 'string' or ARGV[1] == '' or not string.match(ARGV[2] or '', '^%d+$') or tonumber(ARGV[2]) < 1 then
  return redis.error_reply('ERR lock_obtain.lua: owner must be given and ttl be a whole number of milliseconds >= 1')
end
local owner = redis.call('HGET', KEYS[1], 'owner')
if owner and owner ~= ARGV[1] then
  return -1
end

local n = 1
if owner then
  n = redis.call('HINCRBY', KEYS[1], 'count', 1)
else
  -- Free (or a stray hash without an owner): start afresh.
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'owner', ARGV[1], 'count', 1)
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return n
