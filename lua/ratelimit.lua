-- ratelimit.lua: one request against a rate limit, by GCRA (gcra.lua, which
-- lua.go puts in front of this script, defines gcra and store).
--
-- KEYS[1] the limit's key (one per shopper or client IP and action)
-- ARGV[1] now, unix microseconds, from the server's clock
-- ARGV[2] emission interval: microseconds per request at the sustained rate
-- ARGV[3] burst: requests allowed at once on a full bucket
--
-- Returns {allowed, retry_after_us}: allowed is 1 (and the request counted)
-- or 0 (nothing changed, retry_after_us until one would be allowed).
-- Malformed arguments (not whole numbers) are an error reply, nothing changed.
for i = 1, 3 do
  if not string.match(ARGV[i] or '', '^%d+$') or #ARGV[i] > 16 then
    return redis.error_reply('ERR ratelimit.lua: now, interval and burst must be whole numbers >= 0')
  end
end
local now = tonumber(ARGV[1])
local interval = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])

local wait, tat = gcra(KEYS[1], now, interval, burst)
if wait > 0 then
  return {0, wait}
end
store(KEYS[1], tat, now)
return {1, 0}
