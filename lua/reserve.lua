-- reserve.lua: reserve stock for a batch of shoppers of one sale and enqueue
-- their orders, atomically and in order, as if each had run alone: a batch of
-- one is the plain case. Deduct and enqueue happen in this one script, so
-- there is no moment at which stock is gone and the order exists nowhere.
-- Batching lets the server answer many concurrent purchases with one round
-- trip; every shopper still gets an answer of their own. A batch may mix the
-- sale's variants: every key of the sale, each variant's stock included,
-- carries the sale's hash tag. Stock is read once per variant and written
-- once per call, not once per request: the script runs alone, so its own
-- running count is the truth until it writes it back.
--
-- KEYS[1] stock   integer, available stock of the whole sale: always the sum
--                 of KEYS[8]'s values, changed with them in every script
-- KEYS[2] meta    hash: starts_ms, ends_ms, limit (per shopper in the whole
--                 sale), room (admissions per second of the sale's waiting
--                 room; absent or 0: none), only (the variant id when the
--                 sale has one variant, else absent), vlimits ("1" when some
--                 variant has a limit of its own), limit:<variant id> (the
--                 limit that applies to that variant), paused ("1" while
--                 an admin has the sale paused), draw ("1" for a draw sale:
--                 only the holder of an open offer in KEYS[9] may buy),
--                 price:<variant id> (the unit price in cents that variant's
--                 orders are taken at: read when the unit is taken and
--                 written into the order, so a later price change never
--                 reprices it; absent in a meta written by a server from
--                 before prices travelled with orders, or by a failed warm:
--                 the request then answers 2 NOT_WARMED, and a warm
--                 writes it)
-- KEYS[3] buyers  hash: user id -> "orderID:quantity:createdMs:variantID:price",
--                 one per shopper and sale, whatever the variant (":price"
--                 absent in a value written before prices travelled with
--                 orders)
-- KEYS[4] idem    hash: user id .. "\n" .. idempotency key -> same value as buyers
-- KEYS[5] stream  stream of orders to persist: fields id, item, variant,
--                 user, qty, idem, ts and price (the unit price; absent in
--                 entries written before prices travelled with orders)
-- KEYS[6] returns integer: how many times stock has come back (a cancel, an
--                 admin adding stock, a warm); servers compare it to know
--                 whether a sold-out answer is still current
-- KEYS[7] holding sorted set of the waiting room: admitted shoppers who have
--                 not bought yet (lua/room.lua); a purchase takes its buyer
--                 out, so the room's count of open admissions stays right
-- KEYS[8] vstock  hash: variant id -> its available stock; a variant absent
--                 here is not the sale's
-- KEYS[9] offers  hash of a draw sale: user id -> "variantID:deadlineMs" while
--                 the unit drawn (or passed down) to that shopper is theirs
--                 to buy; a purchase appends ":bought", and package draw
--                 appends ":expired" once the deadline passed unbought. Only
--                 ever grows per shopper, so a shopper whose order is later
--                 cancelled cannot buy the unit back: it passes on.
-- KEYS[10], KEYS[11], ... two per request, in the requests' order: the
--                 GCRA bucket of the request's shopper, then of its client,
--                 in this sale (as lua/ratelimit.lua keeps one limit per key:
--                 the theoretical arrival time in unix microseconds, expiring
--                 once the bucket would be full again); unused when the
--                 request's client key is ""
-- ARGV[1] item id, copied into the stream entries
-- ARGV[2], ARGV[3] the per-shopper purchase limit: emission interval in
--                 microseconds (0: no limit) and burst
-- ARGV[4], ARGV[5] the per-client (IP) purchase limit, the same way
-- then 8 values per request, starting at ARGV[6]:
--   now (unix ms, the server's injectable clock), user id, quantity >= 1,
--   order id (ULID) to use if the reservation succeeds,
--   idempotency key ("" for none),
--   admitted: "1" if the request carries the waiting room's admission for
--   this shopper and sale (checked by the server's signature), else "0",
--   variant id ("" for the sale's only variant),
--   client key (the IP, or its /64) for the limits, or "" when the server
--   checked the limits itself before the script
--
-- Returns {returns, code1, detail1, left1, saleLeft1, code2, ...}, where left
-- is the variant's stock left and saleLeft the sale's (both 0 unless said):
--   0 OK               detail = new buyer value (with the unit price taken)
--   1 REPLAY           detail = value first stored under this idempotency key,
--                      so with the price the order was taken at
--   2 NOT_WARMED       meta, stock or vstock is missing: the sale is unknown
--                      to Redis, or was warmed before sales had variants;
--                      or the meta has no price for the variant
--   3 NOT_STARTED      detail = starts_ms
--   4 ENDED            detail = ends_ms
--   5 OVER_LIMIT       detail = the limit that applies to the variant
--   6 ALREADY          detail = the shopper's existing buyer value (any variant)
--   7 SOLD_OUT         left may be > 0 but below quantity; detail = the ids
--                      of the variants with stock left, comma-separated. The
--                      sale's own count is a second guard: a quantity above it
--                      is refused even if the variant's count would allow it
--   8 NOT_ADMITTED     the sale has a waiting room and the request carries no
--                      admission from it, or the shopper's turn is not open in
--                      the room (its window passed, or it was used to buy:
--                      a cancelled order's unit goes to the next in line, so
--                      the same admission cannot buy it back)
--   9 NO_VARIANT       the sale has no such variant
--  10 VARIANT_REQUIRED the sale has several variants and none was named
--  11 RATE_LIMITED     detail = microseconds until the limit would allow it.
--                      The shopper's limit is checked first and the client's
--                      only charged when that passes, so one account
--                      hammering does not use up the allowance of everyone
--                      behind its IP. Checked before anything else but the
--                      warm state: a refused request changes nothing else.
--  12 INVALID_QUANTITY the request's quantity is not a whole number >= 1
--  13 INVALID_ARGUMENT detail = the argument that is malformed: item id,
--                      limits, now, user id, order id, admitted or variant
--                      id (of the call: every request answers 13). The
--                      script trusts no caller; checked before anything else
--  14 PAUSED           an admin paused the sale; a replay of an order taken
--                      before still answers, so that order stays the
--                      shopper's to see
--  15 NO_OFFER         a draw sale, and the shopper holds no open offer for
--                      this variant (not drawn, deadline passed, another
--                      variant)

-- Argument checks: a malformed request is refused before it reads or
-- changes anything. Whole numbers are plain decimals: an optional sign and
-- at most 15 digits, so Lua's doubles hold them exactly (2^53 has 16).
local function whole(s)
  local digits = type(s) == 'string' and string.match(s, '^-?(%d+)$')
  return digits and #digits <= 15 or false
end

local function natural(s)
  return whole(s) and tonumber(s) >= 0
end

local badCall = nil -- the malformed argument of the whole call, if any
if not natural(ARGV[1]) then
  badCall = 'item id'
elseif not (natural(ARGV[2]) and natural(ARGV[3]) and natural(ARGV[4]) and natural(ARGV[5])) then
  badCall = 'limits'
elseif (#ARGV - 5) % 8 ~= 0 then
  badCall = 'request count'
end

-- badRequest returns the code and argument of a malformed request whose
-- values start at ARGV[i], or nil.
local function badRequest(i)
  if badCall then
    return 13, badCall
  end
  if not (whole(ARGV[i + 2]) and tonumber(ARGV[i + 2]) >= 1) then
    return 12, 'quantity'
  end
  if not natural(ARGV[i]) then
    return 13, 'now'
  end
  if ARGV[i + 1] == '' then
    return 13, 'user id'
  end
  if ARGV[i + 3] == '' then
    return 13, 'order id'
  end
  if ARGV[i + 5] ~= '0' and ARGV[i + 5] ~= '1' then
    return 13, 'admitted'
  end
  if ARGV[i + 6] ~= '' and not natural(ARGV[i + 6]) then
    return 13, 'variant id'
  end
  return nil
end

local meta = redis.call('HMGET', KEYS[2], 'starts_ms', 'ends_ms', 'limit', 'room', 'only', 'vlimits', 'paused', 'draw')
local total = redis.call('GET', KEYS[1])
local warm = meta[1] and total and redis.call('EXISTS', KEYS[8]) == 1
total = tonumber(total or '0') -- the sale's stock as this call sees it
local room = tonumber(meta[4] or '0') > 0
local paused = meta[7] == '1'
local draw = meta[8] == '1'
local returns = tonumber(redis.call('GET', KEYS[6]) or '0')
local out = {returns}

local vstock = {}  -- variant -> its stock as this call sees it; false: not the sale's
local taken = {}   -- variant -> units this call took from it
local limits = {}  -- variant -> the limit that applies to it
local prices = {}  -- variant -> its unit price as a string; false: none in meta
local takenAll = 0 -- units this call took from the sale
local all = nil    -- every variant's stock as the call began, read once if needed

local function stockOf(variant)
  local n = vstock[variant]
  if n == nil then
    n = redis.call('HGET', KEYS[8], variant)
    n = n and tonumber(n) or false
    vstock[variant] = n
  end
  return n
end

local function limitOf(variant)
  local l = limits[variant]
  if not l then
    l = meta[3]
    if meta[6] == '1' then
      l = redis.call('HGET', KEYS[2], 'limit:' .. variant) or l
    end
    l = tonumber(l)
    limits[variant] = l
  end
  return l
end

-- priceOf is the unit price the variant's orders are taken at now, or
-- false when the meta holds none (see KEYS[2]: the request is then not
-- warmed).
local function priceOf(variant)
  local p = prices[variant]
  if p == nil then
    p = redis.call('HGET', KEYS[2], 'price:' .. variant) or false
    prices[variant] = p
  end
  return p
end

local function available()
  all = all or redis.call('HGETALL', KEYS[8])
  local ids = {}
  for i = 1, #all, 2 do
    local n = vstock[all[i]] or tonumber(all[i + 1])
    if n > 0 then
      ids[#ids + 1] = all[i]
    end
  end
  return table.concat(ids, ',')
end

-- gcra and store come from gcra.lua, which lua.go puts in front of this
-- script.

local shopperEvery, shopperBurst = tonumber(ARGV[2]) or 0, tonumber(ARGV[3]) or 0
local clientEvery, clientBurst = tonumber(ARGV[4]) or 0, tonumber(ARGV[5]) or 0

-- limited checks the shopper's limit (at sKey), then the client's (at
-- cKey); it returns the wait of the first that refuses, or 0 with both
-- counted.
local function limited(nowMs, client, sKey, cKey)
  if client == '' then
    return 0
  end
  local now = nowMs * 1000
  local wait, sTat, cTat = 0, nil, nil
  if shopperEvery > 0 then
    wait, sTat = gcra(sKey, now, shopperEvery, shopperBurst)
    if wait > 0 then
      return wait
    end
  end
  if clientEvery > 0 then
    wait, cTat = gcra(cKey, now, clientEvery, clientBurst)
    if wait > 0 then
      return wait
    end
  end
  if sTat then
    store(sKey, sTat, now)
  end
  if cTat then
    store(cKey, cTat, now)
  end
  return 0
end

local function reserve(now, user, qty, orderID, idem, admitted, variant, client, sKey, cKey)
  if not warm then
    return 2, '', 0, 0
  end
  -- Never sell unpriced: a warm writes MySQL's price. Checked before the
  -- limits, so the request retried after the warm is not charged twice.
  local named = variant ~= '' and variant or meta[5]
  if named and stockOf(named) and not priceOf(named) then
    return 2, '', 0, 0
  end
  local wait = limited(now, client, sKey, cKey)
  if wait > 0 then
    return 11, tostring(wait), 0, 0
  end
  local idemField = ''
  if idem ~= '' then
    idemField = user .. '\n' .. idem
    local first = redis.call('HGET', KEYS[4], idemField)
    if first then
      return 1, first, 0, 0
    end
  end
  if variant == '' then
    if not meta[5] then
      return 10, '', 0, 0
    end
    variant = meta[5]
  end
  local left = stockOf(variant)
  if not left then
    return 9, '', 0, 0
  end
  if now >= tonumber(meta[2]) then
    return 4, meta[2], 0, 0
  end
  if paused then
    return 14, '', 0, 0
  end
  if now < tonumber(meta[1]) then
    return 3, meta[1], 0, 0
  end
  if room and (admitted ~= '1' or not redis.call('ZSCORE', KEYS[7], user)) then
    return 8, '', 0, 0
  end
  local offer = nil
  if draw then
    offer = redis.call('HGET', KEYS[9], user)
    local v, deadline, done = string.match(offer or '', '^(%d+):(%d+)(.*)$')
    if v ~= variant or done ~= '' or now >= tonumber(deadline) then
      return 15, '', 0, 0
    end
    if qty ~= 1 then
      return 5, '1', 0, 0 -- an offer is one unit, whatever the limits say
    end
  end
  local limit = limitOf(variant)
  if qty > limit then
    return 5, tostring(limit), 0, 0
  end
  local existing = redis.call('HGET', KEYS[3], user)
  if existing then
    return 6, existing, 0, 0
  end
  if qty > left or qty > total then
    return 7, available(), left, total
  end
  left, total = left - qty, total - qty
  vstock[variant] = left
  taken[variant] = (taken[variant] or 0) + qty
  takenAll = takenAll + qty
  local price = priceOf(variant)
  local value = orderID .. ':' .. qty .. ':' .. now .. ':' .. variant .. ':' .. price
  redis.call('HSET', KEYS[3], user, value)
  if idemField ~= '' then
    redis.call('HSET', KEYS[4], idemField, value)
  end
  redis.call('XADD', KEYS[5], '*',
    'id', orderID, 'item', ARGV[1], 'variant', variant, 'user', user, 'qty', qty,
    'idem', idem, 'ts', now, 'price', price)
  if room then
    redis.call('ZREM', KEYS[7], user)
  end
  if offer then
    redis.call('HSET', KEYS[9], user, offer .. ':bought')
  end
  return 0, value, left, total
end

for i = 6, #ARGV, 8 do
  local k = 10 + (i - 6) / 8 * 2
  local code, detail, left, saleLeft = badRequest(i)
  if code then
    left, saleLeft = 0, 0
  else
    code, detail, left, saleLeft = reserve(tonumber(ARGV[i]), ARGV[i + 1], tonumber(ARGV[i + 2]),
      ARGV[i + 3], ARGV[i + 4], ARGV[i + 5], ARGV[i + 6], ARGV[i + 7], KEYS[k], KEYS[k + 1])
  end
  out[#out + 1] = code
  out[#out + 1] = detail
  out[#out + 1] = left
  out[#out + 1] = saleLeft
end

-- Write back what this call took.
for variant, n in pairs(taken) do
  redis.call('HINCRBY', KEYS[8], variant, -n)
end
if takenAll > 0 then
  redis.call('DECRBY', KEYS[1], takenAll)
end
return out
