-- SPDX-License-Identifier: MIT
-- wrk script of bench_http.sh: POSTs one tools/call echo over and over and
-- checks every answer. Environment: BODY (the JSON body), HEADERS ("Name:
-- value" lines), EXPECT (text every answer must contain; empty: any 200).
wrk.method = "POST"
wrk.body = os.getenv("BODY")
for line in string.gmatch(os.getenv("HEADERS") or "", "[^\n]+") do
  local name, value = string.match(line, "^([^:]+):%s*(.*)$")
  if name then wrk.headers[name] = value end
end
local expect = os.getenv("EXPECT") or ""
local threads = {}

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  bad = 0
end

function response(status, headers, body)
  if status ~= 200 or (expect ~= "" and not string.find(body, expect, 1, true)) then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do total = total + t:get("bad") end
  io.write(string.format("bad %d\n", total))
end
