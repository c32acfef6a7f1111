-- shoppers.lua: a wrk script in which every request is a different shopper.
-- Thread i reads only its own file, <prefix>.<i>, so the threads' shoppers
-- are disjoint. Headers are built per request in request(); there is no
-- response() callback, because one makes wrk parse every answer and slows it.
--
-- wrk runs each thread's init() on its main thread before starting the
-- next thread, and starts its clock only after the last one: a slow init
-- lets the first threads send uncounted-for seconds early. So init() only
-- reads the file into one string, and request() cuts the next line from it.
--
-- args[1] file prefix; each line "jwt purchase-token"
-- args[2] request path
-- args[3] optional, default 0: the file of this wrk's first thread. A run
--         split over several wrk processes (one per server instance) gives
--         each its own range of files, so no shopper is sent twice.
-- args[4] optional: "variants" when each line ends with the variant id the
--         shopper asks for ("jwt purchase-token variant-id"). A separate
--         request function reads them, so runs without variants do exactly
--         the work they did before variants existed.
local threads = 0

function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

function init(args)
  local f = assert(io.open(args[1] .. "." .. (index + tonumber(args[3] or "0")), "rb"))
  data = f:read("*a")
  f:close()
  path, pos, body = args[2], 1, '{"quantity":1}'
  if args[4] == "variants" then
    bodies = {}
    request = variantRequest
  end
end

function request()
  local nl = data:find("\n", pos, true)
  if not nl then
    -- The list ran out: go round again. The benchmark counts the purchases
    -- and refuses such a run rather than count repeat shoppers as new ones.
    pos = 1
    nl = data:find("\n", pos, true)
  end
  local sp = data:find(" ", pos, true)
  local jwt, token = data:sub(pos, sp - 1), data:sub(sp + 1, nl - 1)
  pos = nl + 1
  return wrk.format("POST", path, {
    ["Authorization"] = "Bearer " .. jwt,
    ["X-Purchase-Token"] = token,
    ["Content-Type"] = "application/json",
  }, body)
end

-- variantRequest is request() for lines that end with a variant id; each
-- variant's body is built once.
function variantRequest()
  local nl = data:find("\n", pos, true)
  if not nl then
    pos = 1 -- the list ran out: as in request()
    nl = data:find("\n", pos, true)
  end
  local sp = data:find(" ", pos, true)
  local sp2 = data:find(" ", sp + 1, true)
  local jwt, token, variant = data:sub(pos, sp - 1), data:sub(sp + 1, sp2 - 1), data:sub(sp2 + 1, nl - 1)
  pos = nl + 1
  local b = bodies[variant]
  if not b then
    b = '{"variant_id":' .. variant .. ',"quantity":1}'
    bodies[variant] = b
  end
  return wrk.format("POST", path, {
    ["Authorization"] = "Bearer " .. jwt,
    ["X-Purchase-Token"] = token,
    ["Content-Type"] = "application/json",
  }, b)
end
