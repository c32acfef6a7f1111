-- lock_refresh.lua: renew the ttl of a lock, only if the caller still owns it.
-- The hold count is unchanged.
--
-- KEYS[1] lock   hash: owner -> the holder's token, count -> holds taken
-- ARGV[1] owner token
-- ARGV[2] ttl, milliseconds >= 1
--
-- Returns an integer:
--   n >= 1  OK           renewed; the lock is ours with n holds
--   -1      NOT_OURS     the lock expired or another owner holds it; nothing changed
--
-- Malformed arguments are an error reply (ERR lock_refresh.lua: ...), nothing changed.
if type(ARGV[1]) ~= 'string' or ARGV[1] == '' or not string.match(ARGV[2] or '', '^%d+$') or tonumber(ARGV[2]) < 1 then
  return redis.error_reply('ERR lock_refresh.lua: owner must be given and ttl be a whole number of milliseconds >= 1')
end
if redis.call('HGET', KEYS[1], 'owner') ~= ARGV[1] then
  return -1
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return tonumber(redis.call('HGET', KEYS[1], 'count'))
