-- wrk script: rotate over the request paths listed in a file (one per line), with an optional Cookie and
-- Authorization header; print a JSON summary (requests/s, p50/p95/p99 in ms, errors) when done.
-- usage: wrk -s paths.lua http://host:port -- <paths file> [cookie] [authorization]
local paths = {}
local counter = 0
local headers = {}

function init(args)
  for line in io.lines(args[1]) do
    if #line > 0 then paths[#paths + 1] = line end
  end
  if args[2] and #args[2] > 0 then headers["Cookie"] = args[2] end
  if args[3] and #args[3] > 0 then headers["Authorization"] = args[3] end
  -- each thread starts at a different place in the list
  counter = math.random(#paths)
end

function request()
  counter = counter % #paths + 1
  return wrk.format("GET", paths[counter], headers)
end

function done(summary, latency, requests)
  local e = summary.errors
  local seconds = summary.duration / 1e6
  io.write(string.format(
    'WRK_JSON {"requests": %d, "seconds": %.2f, "rps": %.1f, "p50_ms": %.1f, "p95_ms": %.1f, ' ..
    '"p99_ms": %.1f, "max_ms": %.1f, "errors_status": %d, "errors_socket": %d}\n',
    summary.requests, seconds, summary.requests / seconds,
    latency:percentile(50) / 1000, latency:percentile(95) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, e.status, e.connect + e.read + e.write + e.timeout))
end
