#!/usr/bin/env bash
# The viewer at scale (issue targets): a generated trace of 100 M events and 10 000
# producers served by `traza serve`. Measures the UI's first paint in headless
# Chromium (target < 1 s), then 60 pans and zooms — each the timeline and the density
# of one window, as the UI asks them — while analyses run on another trace through
# the same server (target: p95 < 100 ms), and the server's memory (target < 200 MB).
# usage: bench/viewer_scale.sh [TRAZA_BINARY]   (env: BENCH_WS = a workspace to keep
# the traces between runs; EVENTS, default 100M; PRODUCERS, default 10000; WIDTH,
# default 1500 px; NAME, the trace to use)
set -u
traza=$(realpath "${1:-build/traza}")
root=$(cd "$(dirname "$0")/.." && pwd)
ws=${BENCH_WS:-/tmp/traza-bench-scale}
events=${EVENTS:-100M}
producers=${PRODUCERS:-10000}
width=${WIDTH:-1500}
export TRAZA_WORKSPACE=$ws
name=${NAME:-scale${events}p$producers}
if ! "$traza" info "$name" >/dev/null 2>&1; then
  echo "generating $name ($events events, $producers producers) in $ws ..."
  /usr/bin/time -f "  gen: %e s" "$traza" gen --name "$name" --events "$events" --producers "$producers" -q
fi
if ! "$traza" info other >/dev/null 2>&1; then
  "$traza" gen --name other --events 2M --tree 10x10 --seed 7 -q
fi
"$traza" info "$name" | head -4
echo "store: $(du -sh "$ws/traces" | cut -f1) for the workspace"
. "$root/bench/serve_lib.sh"
bench_serve
ms() { python3 -c "print(round($1 * 1000, 1))"; }

# first paint: the trace list, then the trace opened (density, timeline, table)
if [ -x /usr/bin/chromium ] && [ -d "$root/web/node_modules/playwright-core" ]; then
  (cd "$root/web" && node test/firstpaint.mjs "http://127.0.0.1:$port/" "$name")
else
  echo "first paint: skipped (chromium or web/node_modules missing)"
fi

# the load: analyses of the other trace through the same server, back to back
load() {
  while :; do
    curl -s -o /dev/null "$base/aggregate?trace=other&slices=200&model=duration"
    curl -s -o /dev/null "$base/callstack?trace=other"
    curl -s -o /dev/null "$base/stats?trace=other&re.type=^state"
  done
}
load & lpid=$!
trap 'kill $lpid 2>/dev/null; kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$tmp"' EXIT
sleep 1

# 60 windows: zoom levels from the whole trace down to a millionth, random positions
read -r min max < <("$traza" info "$name" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["min_ts"], d["max_ts"])')
python3 - "$min" "$max" >"$tmp/windows" <<'PY'
import random, sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
random.seed(29)
for k in range(60):
    frac = 10 ** (-6 * k / 59)          # whole trace ... 1e-6 of it
    span = max(1, int((hi - lo) * frac))
    a = random.randint(lo, max(lo, hi - span))
    print(a, a + span)
PY
: >"$tmp/times"
while read -r a b; do
  # the UI asks both at once; the pan is answered when both are
  t=$( { curl -s -o /dev/null -w '%{time_total}\n' "$base/timeline?trace=$name&width=$width&from=$a&to=$b" &
         curl -s -o /dev/null -w '%{time_total}\n' "$base/density?trace=$name&slices=$width&from=$a&to=$b" &
         wait; } | sort -n | tail -1)
  echo "$t" >>"$tmp/times"
done <"$tmp/windows"
python3 - "$tmp/times" <<'PY'
import sys
t = sorted(float(x) * 1000 for x in open(sys.argv[1]) if x.strip())
p = lambda q: t[min(len(t) - 1, int(q * len(t)))]
print("pan/zoom (timeline + density of one window, %d windows, analyses running): median %.1f ms, p95 %.1f ms, max %.1f ms"
      % (len(t), p(0.5), p(0.95), t[-1]))
PY
kill $lpid 2>/dev/null; wait $lpid 2>/dev/null
echo "server memory: VmHWM (peak) $(awk '/VmHWM/{print $2/1024 " MB"}' /proc/$pid/status), VmRSS $(awk '/VmRSS/{print $2/1024 " MB"}' /proc/$pid/status), RssAnon $(awk '/RssAnon/{print $2/1024 " MB"}' /proc/$pid/status)"
