-- offer.lua: the units of a draw sale passed to shoppers (package draw, which
-- runs it through internal/stock/offer.go), in one atomic step against the
-- purchases that use them (lua/reserve.lua). Only the fleet's draw job calls
-- it, one server at a time.
--
-- KEYS[1] offers  hash: user id -> "variantID:deadlineMs", then ":bought"
--                 (reserve.lua) or ":expired" (here) appended once settled
-- KEYS[2] vstock  hash: variant id -> its available stock
-- ARGV[1] op:
--   "free"    ARGV[2] variant id, ARGV[3] now (unix ms): returns the units
--             of the variant nobody holds an offer for: its stock left
--             minus its open offers (an open offer past its deadline still
--             holds its unit until expired). Read together, so a purchase
--             between two reads cannot make a unit look free twice.
--   "publish" ARGV[2] user id, ARGV[3] "variantID:deadlineMs": writes the
--             offer, or moves an open one's deadline, unless the shopper's
--             is settled (bought or expired: an offer only moves forward);
--             returns the value now held.
--   "expire"  ARGV[2] user id, ARGV[3] now (unix ms): an open offer whose
--             deadline passed becomes expired, so its holder can no longer
--             buy with it; returns the value now held, false if none.
local offers, vstock = KEYS[1], KEYS[2]
local op = ARGV[1]

if op == 'free' then
  local variant, now = ARGV[2], tonumber(ARGV[3])
  local left = tonumber(redis.call('HGET', vstock, variant) or '0')
  local all = redis.call('HVALS', offers)
  for _, v in ipairs(all) do
    local ov, _, done = string.match(v, '^(%d+):(%d+)(.*)$')
    if ov == variant and done == '' then
      left = left - 1
    end
  end
  return math.max(left, 0)
elseif op == 'publish' then
  local v = redis.call('HGET', offers, ARGV[2])
  if v and not string.match(v, '^%d+:%d+$') then
    return v
  end
  redis.call('HSET', offers, ARGV[2], ARGV[3])
  return ARGV[3]
elseif op == 'expire' then
  local v = redis.call('HGET', offers, ARGV[2])
  if not v then
    return false
  end
  local _, deadline, done = string.match(v, '^(%d+):(%d+)(.*)$')
  if done == '' and tonumber(deadline) <= tonumber(ARGV[3]) then
    v = v .. ':expired'
    redis.call('HSET', offers, ARGV[2], v)
  end
  return v
end
return redis.error_reply('ERR offer.lua: unknown op ' .. tostring(op))
