-- shoppers.lua: a wrk script in which every request is a different shopper.
-- Thread i reads only its own file, <prefix>.<i>, so the threads' shoppers
-- are disjoint. Headers are built per request in request(); there is no
-- response() callback, because one makes wrk parse every answer and slows it.
--
-- args[1] file prefix; each line "jwt purchase-token"
-- args[2] request path
local threads = 0

function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

function init(args)
  jwts, tokens = {}, {}
  for line in io.lines(args[1] .. "." .. index) do
    local j, t = line:match("^(%S+) (%S+)$")
    jwts[#jwts + 1], tokens[#tokens + 1] = j, t
  end
  path, n, body = args[2], 0, '{"quantity":1}'
end

function request()
  -- Wraps round when the list runs out; the benchmark counts the requests
  -- and refuses such a run rather than report repeat shoppers as new ones.
  n = n % #jwts + 1
  return wrk.format("POST", path, {
    ["Authorization"] = "Bearer " .. jwts[n],
    ["X-Purchase-Token"] = tokens[n],
    ["Content-Type"] = "application/json",
  }, body)
end
