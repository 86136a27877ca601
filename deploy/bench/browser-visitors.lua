-- browser-visitors.lua - wrk's requests as a browser's on the owner's
-- site: a browser's User-Agent, a Referer on an allowed host, and a
-- cookie that is not the owner's mark, from 2,048 visitors in turn (told
-- apart by their User-Agent, since wrk cannot change its address), so
-- that every counting rule runs and the counter's share of the visitor
-- table (4,096 slots in buckets of 64) is used but no bucket of it
-- fills. bench-fastcgi.sh passes it to every backend (wrk -s).
local n = 0

request = function()
  n = n + 1
  return wrk.format("GET", nil, {
    ["User-Agent"] = "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0 visitor/" .. (n % 2048),
    ["Referer"] = "https://www.example.org/blog/2026/12/a-post.html",
    ["Cookie"] = "counter_owner=not-the-mark; theme=dark",
  })
end
