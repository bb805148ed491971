#!/usr/bin/env bash
# Temporal aggregation at 20, 200, 2000 and 20000 slices on a generated trace (1 M
# events, 4x4 producer tree, 10 types: 160 series): wall time and peak memory with the
# proposed p (qualities + p list + one partition) and with one p (--p 0.3: no list).
# Above 2000 slices the search runs over 2000 units of consecutive slices
# (doc/analysis.md), so time and memory stop growing with the slice count.
# usage: bash bench/aggregate.sh [build/traza]
set -euo pipefail
traza=$(realpath "${1:-build/traza}")
ws=$(mktemp -d /tmp/traza-bench-agg-XXXXXX)
trap 'rm -rf "$ws"' EXIT
export TRAZA_WORKSPACE=$ws
"$traza" gen --events 1M --tree 4x4 --seed 3 --name g1m >/dev/null
run() { # wall seconds and peak KB of one run
  /usr/bin/time -f "%e s %M KB" "$traza" aggregate g1m "$@" --save b --replace 2>&1 >/dev/null | tail -1; }
for n in 20 200 2000 20000; do
  echo "slices $n: proposed p $(run --slices "$n"); --p 0.3 $(run --slices "$n" --p 0.3)"
done
