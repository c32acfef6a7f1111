-- gcra.lua: the GCRA rate limit (the generic cell rate algorithm: a token
-- bucket kept as one number) that ratelimit.lua and reserve.lua share. It is
-- no script of its own: lua.go puts it in front of each of the two, so both
-- count a request the same way. A limit's key holds the "theoretical
-- arrival time" (TAT) in unix microseconds: when the bucket would be full
-- again. A request is allowed if it would not push the TAT more than burst
-- intervals past now.

-- gcra counts one request against the limit kept at key: it returns 0 with
-- the new arrival time, or the microseconds to wait, writing nothing.
local function gcra(key, now, interval, burst)
  local tat = tonumber(redis.call('GET', key) or now)
  if tat < now then
    tat = now
  end
  local newTat = tat + interval
  local allowAt = newTat - interval * burst
  if now < allowAt then
    return allowAt - now
  end
  return 0, newTat
end

-- store writes the arrival time gcra gave, expiring once the bucket would
-- be full again.
local function store(key, tat, now)
  redis.call('SET', key, tat, 'PX', math.ceil((tat - now) / 1000) + 1)
end

