#!/usr/bin/env bash
# Web UI benchmark: density and timeline requests of `traza serve` on a 10 M-event
# trace (target < 100 ms each), next to the anchor `traza density` run as a command
# on the same trace and window; then the UI's first paint in headless chromium
# (target < 1 s).
# usage: bench/web.sh [TRAZA_BINARY]   (env: BENCH_WS = a workspace to keep the trace
# between runs; EVENTS = trace size, default 10M)
set -u
traza=$(realpath "${1:-build/traza}")
root=$(cd "$(dirname "$0")/.." && pwd)
ws=${BENCH_WS:-/tmp/traza-bench-web}
events=${EVENTS:-10M}
export TRAZA_WORKSPACE=$ws
name=big$events
if ! "$traza" info "$name" >/dev/null 2>&1; then
  echo "generating $name ($events events) in $ws ..."
  /usr/bin/time -f "  gen: %e s" "$traza" gen --name "$name" --events "$events" --params 1 -q
fi
"$traza" info "$name" | head -4
. "$root/bench/serve_lib.sh"
bench_serve
curl -s -o /dev/null "$base/trace?trace=$name"   # open the trace (cached afterwards)
# the first requests on a fresh server: they read only ranks and the stored overview
# (doc/store.md), so they are as fast as later ones; before, the first one built an
# in-memory time index by scanning every event (3.5 s on 10 M events)
cpu() { awk '{printf "%.2f", ($14+$15)/100}' "/proc/$pid/stat"; }
c0=$(cpu)
t=$(curl -s -o /dev/null -w '%{time_total}' "$base/density?trace=$name&slices=1000")
t2=$(curl -s -o /dev/null -w '%{time_total}' "$base/timeline?trace=$name&width=1500")
c1=$(cpu)
echo "first requests: density 1000 slices $(python3 -c "print(round($t*1000,1))") ms, timeline 1500 px $(python3 -c "print(round($t2*1000,1))") ms wall; $(python3 -c "print(round($c1-$c0,2))") s server CPU, server RssAnon $(awk '/RssAnon/{print $2/1024 " MB"}' /proc/$pid/status)"
read -r min max < <("$traza" info "$name" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["min_ts"], d["max_ts"])')
mid=$(( (min + max) / 2 )); q=$(( (max - min) / 1000 ))
# best of 5 wall-clock times of one request, in ms
best() { local b=999999 t; for _ in 1 2 3 4 5; do
  t=$(curl -s -o "$tmp/out" -w '%{time_total}' "$1"); t=$(python3 -c "print(round($t*1000,1))")
  b=$(python3 -c "print(min($b,$t))"); done; echo "$b"; }
printf '%-58s %10s %12s\n' request "server ms" "answer bytes"
row() { local ms; ms=$(best "$2"); printf '%-58s %10s %12s\n' "$1" "$ms" "$(wc -c <"$tmp/out")"; }
row "density, whole trace, 1000 slices" "$base/density?trace=$name&slices=1000"
row "density, 1/1000 window, 1000 slices" "$base/density?trace=$name&slices=1000&from=$mid&to=$((mid + q))"
row "timeline, whole trace, 1500 px (summary)" "$base/timeline?trace=$name&width=1500"
row "timeline, 1/1000 window, 1500 px (detail, 10 k events)" "$base/timeline?trace=$name&width=1500&from=$mid&to=$((mid + q))"
row "timeline, 1/100000 window, 1500 px (detail)" "$base/timeline?trace=$name&width=1500&from=$mid&to=$((mid + q / 100))"
row "events page (100) in the middle" "$base/events?trace=$name&limit=100&offset=5000000"
row "stats, 1/1000 window" "$base/stats?trace=$name&from=$mid&to=$((mid + q))"
# requests bounded by the time budget (budget=, default 2000 ms): a regex count over
# the whole trace, statistics with a regex, aggregation of the whole trace
row "events page + regex count (re.type), whole trace" "$base/events?trace=$name&limit=100&re.type=^state"
row "stats with re.type, whole trace" "$base/stats?trace=$name&re.type=^state"
row "aggregate occurrences, whole trace, 30 slices" "$base/aggregate?trace=$name&slices=30"
row "aggregate duration, whole trace, 30 slices (sampled)" "$base/aggregate?trace=$name&slices=30&model=duration"
for u in "events?trace=$name&limit=1&re.type=^state" "stats?trace=$name&re.type=^state" \
         "aggregate?trace=$name&slices=30&model=duration"; do
  echo "  $(curl -s "$base/$u" | python3 -c 'import json,sys; d=json.load(sys.stdin); print({k: d[k] for k in ("total","total_exact","scanned","sampled","partial","covered_to") if k in d})') <- /api/${u%%\?*}"
done
# the anchor: the same density computed by the command (process start + open + query)
t=$( { /usr/bin/time -f '%e' "$traza" density "$name" --slices 1000 --json >/dev/null; } 2>&1 )
d=$(best "$base/density?trace=$name&slices=1000")
echo "anchor: traza density --slices 1000 (a command) $(python3 -c "print(round($t*1000))") ms; served $d ms; ratio $(python3 -c "print(round($t*1000/max($d,0.1),1))")x"
if [ -x /usr/bin/chromium ] && [ -d "$root/web/node_modules/playwright-core" ]; then
  (cd "$root/web" && node test/firstpaint.mjs "http://127.0.0.1:$port/" "$name")
else
  echo "first paint: skipped (chromium or web/node_modules missing)"
fi
