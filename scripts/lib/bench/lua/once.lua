-- wrk: every line of BENCH_ITEMS once, substituted for ITEM in BENCH_PATH, then stop (scripts/bench's cold rows).
-- With one wrk thread every connection shares this state, so no line is sent twice. The thread is told to stop
-- while a connection's worth of lines (BENCH_CONNECTIONS) is still left, because each open connection may ask
-- for one more request before it closes; should the list still run out, the request goes to a path that 404s,
-- which shows in the non-2xx column instead of silently reusing a token.
local items = {}
for line in io.lines(os.getenv("BENCH_ITEMS")) do items[#items + 1] = line end
local template = os.getenv("BENCH_PATH")
local reserve = tonumber(os.getenv("BENCH_CONNECTIONS"))
local i = 0
request = function()
    i = i + 1
    if i >= #items - reserve then wrk.thread:stop() end
    if i > #items then return wrk.format("GET", "/bench/list-exhausted") end
    return wrk.format("GET", (template:gsub("ITEM", items[i])))
end
