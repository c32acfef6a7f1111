-- lock_release.lua: give back one hold of a lock, deleting it at the last one.
-- Compare-and-delete in one step: a stranger (or a holder whose lock expired
-- and was taken by someone else) can never release another owner's lock.
-- The ttl is left as it is.
--
-- KEYS[1] lock   hash: owner -> the holder's token, count -> holds taken
-- ARGV[1] owner token
--
-- Returns an integer:
--   n >= 1  OK           one hold released; the lock is still ours with n holds
--   0       OK           the last hold released; the lock is deleted
--   -1      NOT_OURS     the lock expired or another owner holds it; nothing changed
--
-- Malformed arguments are an error reply (ERR lock_release.lua: ...), nothing changed.
if type(ARGV[1]) ~= 'string' or ARGV[1] == '' then
  return redis.error_reply('ERR lock_release.lua: owner must be given')
end
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return -1
end
local n = redis.call('HINCRBY', KEYS[1], 'count', -1)
if n <= 0 then
  redis.call('DEL', KEYS[1])
  return 0
end
return n
