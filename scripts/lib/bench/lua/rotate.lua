-- wrk: rotate through the lines of a file, one per request, each substituted into a request template.
-- Shared by scripts/bench and scripts/profile (scripts/lib/bench/wrk.py sets the environment):
--   BENCH_ITEMS   the file, one item a line          BENCH_PATH    the path template (ITEM, ITEM1, ITEM2, …)
--   BENCH_METHOD  GET unless set                      BENCH_BODY    a form body template (sent as a form)
--   BENCH_COOKIE  a Cookie header template            BENCH_START   lines to skip first (default 0)
local items = {}
for line in io.lines(os.getenv("BENCH_ITEMS")) do items[#items + 1] = line end
local method = os.getenv("BENCH_METHOD") or "GET"
local template = os.getenv("BENCH_PATH")
local body = os.getenv("BENCH_BODY")
local cookie = os.getenv("BENCH_COOKIE")
local i = tonumber(os.getenv("BENCH_START") or "0")
-- ITEM is the whole line; ITEM1, ITEM2, … its space-separated parts (a session's cookie and form token).
-- Replaced through functions: form tokens hold '%', which gsub reads specially in a replacement string.
local function fill(text, item)
    if not text then return nil end
    local parts = {}
    for part in item:gmatch("%S+") do parts[#parts + 1] = part end
    text = text:gsub("ITEM(%d)", function(n) return parts[tonumber(n)] or "" end)
    return (text:gsub("ITEM", function() return item end))
end
request = function()
    i = i + 1
    if i > #items then i = 1 end
    local headers = {}
    if cookie then headers["Cookie"] = fill(cookie, items[i]) end
    if body then headers["Content-Type"] = "application/x-www-form-urlencoded" end
    return wrk.format(method, fill(template, items[i]), headers, fill(body, items[i]))
end
