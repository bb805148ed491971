#!/usr/bin/env bash
# Timeline summary rows (/api/timeline in summary mode, doc/api.md) on a generated trace
# of 10 M events and 1 000 producers (target < 100 ms a request): the requests until the
# server's time index is complete (it is filled with half of each request's budget), a
# whole-trace summary, 20 random zooms, the server's RSS; and, on the whole trace, the
# columns the rows cover for the first producer next to those its sampled cells show.
# usage: bench/timeline_summary.sh [TRAZA_BINARY]   (env: BENCH_WS = a workspace to keep
# the trace between runs; EVENTS = trace size, default 10M; PRODUCERS, default 1000;
# WIDTH = pixels, default 1500)
set -u
traza=$(realpath "${1:-build/traza}")
ws=${BENCH_WS:-/tmp/traza-bench-summary}
events=${EVENTS:-10M}
producers=${PRODUCERS:-1000}
width=${WIDTH:-1500}
export TRAZA_WORKSPACE=$ws
name=sum${events}p$producers
if ! "$traza" info "$name" >/dev/null 2>&1; then
  echo "generating $name ($events events, $producers producers) in $ws ..."
  /usr/bin/time -f "  gen: %e s" "$traza" gen --name "$name" --events "$events" --producers "$producers" -q
fi
"$traza" info "$name" | head -4
. "$(dirname "$0")/serve_lib.sh"
bench_serve
curl -s -o /dev/null "$base/trace?trace=$name"
ms() { python3 -c "print(round($1*1000,1))"; }
has_rows() { python3 -c 'import json,sys; print("rows" in json.load(open(sys.argv[1])))' "$1"; }
# the requests until the rows come (the time index filled across them)
whole="$base/timeline?trace=$name&width=$width"
k=0; total=0
while :; do
  k=$((k + 1))
  t=$(curl -s -o "$tmp/out" -w '%{time_total}' "$whole")
  total=$(python3 -c "print($total + $t)")
  echo "  request $k: $(ms "$t") ms, rows: $(has_rows "$tmp/out")"
  [ "$(has_rows "$tmp/out")" = True ] && break
  [ $k -ge 20 ] && { echo "no rows after 20 requests"; exit 1; }
done
echo "time index complete after $k requests ($(ms "$total") ms in all); server RssAnon $(awk '/RssAnon/{print $2/1024 " MB"}' /proc/$pid/status), VmRSS $(awk '/VmRSS/{print $2/1024 " MB"}' /proc/$pid/status)"
python3 - "$tmp/out" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
first = min(r['producer'] for r in d['rows'])
runs = next(r['runs'] for r in d['rows'] if r['producer'] == first)
covered = sum(u[1] for u in runs)
sampled = sum(1 for c in d['columns'] if any(cell[0] == first for cell in c['cells']))
nruns = sum(len(r['runs']) for r in d['rows'])
print(f"whole trace, {d['width']} px: producer {first} covers {covered} columns in {len(runs)} runs "
      f"(the sampled cells show it in {sampled}); {len(d['rows'])} rows, {nruns} runs, truncated: {d['rows_truncated']}")
PY
best=999999
for _ in 1 2 3 4 5; do
  t=$(ms "$(curl -s -o "$tmp/out" -w '%{time_total}' "$whole")")
  best=$(python3 -c "print(min($best,$t))")
done
echo "whole-trace summary, $width px: best of 5 $best ms, $(wc -c <"$tmp/out") bytes"
read -r min max < <("$traza" info "$name" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["min_ts"], d["max_ts"])')
# 20 random zooms: a window of 1/2 to 1/1000 of the trace at a random place (seed 1)
python3 - "$min" "$max" >"$tmp/zooms" <<'PY'
import random, sys
lo, hi = int(sys.argv[1]), int(sys.argv[2])
r = random.Random(1)
for _ in range(20):
    span = int((hi - lo) / (2 * 10 ** r.uniform(0, 2.7)))
    a = r.randint(lo, hi - span)
    print(a, a + span)
PY
: >"$tmp/times"
while read -r a b; do
  t=$(curl -s -o "$tmp/out" -w '%{time_total}' "$whole&from=$a&to=$b")
  mode=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["mode"], "rows" in d, d.get("rows_truncated"))' "$tmp/out")
  echo "$(ms "$t") $(wc -c <"$tmp/out") $mode" >>"$tmp/times"
done <"$tmp/zooms"
python3 - "$tmp/times" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
ms = sorted(float(r[0]) for r in rows)
summ = sum(1 for r in rows if r[2] == 'summary')
print(f"20 random zooms: median {statistics.median(ms)} ms, max {ms[-1]} ms; {summ} in summary mode "
      f"(all with rows: {all(r[3] == 'True' for r in rows if r[2] == 'summary')}), largest answer {max(int(r[1]) for r in rows)} bytes")
PY
echo "server RssAnon $(awk '/RssAnon/{print $2/1024 " MB"}' /proc/$pid/status), VmRSS $(awk '/VmRSS/{print $2/1024 " MB"}' /proc/$pid/status)"
