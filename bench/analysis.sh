#!/usr/bin/env bash
# Benchmarks of the analyses on generated traces. The anchor is the
# published timing of the original tools (no runnable reference exists):
#   aggregation (FrameSoC RR-8304, G-Streamer case, ~1.5 M events, ~1500 producers):
#     15-20 s to read the events + 50 s to build the vectors  -> anchor 65 s
#   anomaly + correlation (RT-0450, ~800 k events, series ~23 k / ~11 k): 12-14 s -> anchor 12 s
# usage: bench/analysis.sh [BUILD_DIR]   (default build; needs make first)
set -eu
cd "$(dirname "$0")/.."
BUILD=${1:-build}
[ -f "$BUILD" ] && BUILD=$(dirname "$BUILD")   # accepts build/ or build/traza
case $BUILD in /*) ;; *) BUILD=$PWD/$BUILD ;; esac
T=$BUILD/traza
WS=$(mktemp -d /tmp/traza-bench-analysis-XXXXXX)
trap 'rm -rf "$WS"' EXIT
export TRAZA_WORKSPACE=$WS
MK=$BUILD/helpers/analysis/helper_mkgen   # built by `make tests`
[ -x "$MK" ] || make -s tests >/dev/null
echo "generating traces..."
"$MK" "$WS" many gst 1500000 1500
"$MK" "$WS" flush mid 230 760000      # ~800 k events: read 23 k, irq ~11.5 k
"$MK" "$WS" flush big 230 970000      # ~1 M events for --rank
# Wall time; CPU time (user+sys) goes to $WS/cpu.log: the machine may be shared, so
# both are printed.
t() { /usr/bin/time -f "%e %U %S" -o "$WS/t" "$@" >/dev/null; local e u y; read -r e u y <"$WS/t"
      echo "  cpu $(echo "$u + $y" | bc)s (wall ${e}s): $*" >>"$WS/cpu.log"; echo "$e"; }
ratio() { echo "scale=1; $1 / $2" | bc; }
echo "events: gst $("$T" info gst --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'), \
mid $("$T" info mid --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])'), \
big $("$T" info big --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')"
for n in 20 200; do
  s=$(t "$T" aggregate gst --slices $n --list-p)
  echo "aggregate --slices $n --list-p (1.5M events, 1500 producers): ${s}s  (anchor 65 s: x$(ratio 65 "$s") faster)"
done
s1=$(t "$T" anomaly mid --type read --producer net --rule mad)
s2=$(t "$T" correlate mid --series anomalies:read@net:duration --with irq --method regular)
s3=$(t "$T" correlate mid --series read --with irq --method irregular)
tot=$(echo "$s1 + $s2 + $s3" | bc)
echo "anomaly ${s1}s + correlate regular ${s2}s + irregular ${s3}s = ${tot}s (800k events; anchor 12 s: x$(ratio 12 "$tot") faster)"
s=$(t "$T" correlate big --anomalies-of read --producer net --rule mad --rank)
echo "correlate --anomalies-of read --rank over every series (1M events): ${s}s (target < 2 s)"
echo "CPU time per command (user+sys):"; cat "$WS/cpu.log"
