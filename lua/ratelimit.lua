-- ratelimit.lua: one request against a rate limit, by GCRA (the generic cell
-- rate algorithm: a token bucket kept as one number). The key holds the
-- "theoretical arrival time" (TAT) in microseconds: when the bucket would be
-- full again. A request is allowed if it would not push the TAT more than
-- burst intervals past now.
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

local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then
  tat = now
end
local new_tat = tat + interval
local allow_at = new_tat - interval * burst
if now < allow_at then
  return {0, allow_at - now}
end
redis.call('SET', KEYS[1], new_tat, 'PX', math.ceil((new_tat - now) / 1000) + 1)
return {1, 0}
