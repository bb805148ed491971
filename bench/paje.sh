#!/usr/bin/env bash
# Pajé import speed: `traza import` (parse + store in SQLite, indexes included) against
# `pj_dump` (parse + simulate + dump to /dev/null) on the same files, in one run.
# Target: ratio traza/pj_dump <= 1.0.
#   bash bench/paje.sh [TRAZA_BINARY]        (default build/traza)
# Inputs: the largest trace of ../shared/data/pajeng (when present) and a generated
# trace of $PAJE_BENCH_EVENTS event lines (default 1000000, bench/gen_paje.py).
# pj_dump is taken from $PJ_DUMP (default: pj_dump on the PATH, Debian package pajeng).
set -eu
cd "$(dirname "$0")/.."
TRAZA=${1:-build/traza}
PJ_DUMP=${PJ_DUMP:-pj_dump}
N=${PAJE_BENCH_EVENTS:-1000000}
DATA=${TRAZA_TEST_DATA:-../shared/data}
command -v "$PJ_DUMP" >/dev/null || { echo "SKIP: pj_dump not found (apt-get install pajeng)"; exit 0; }
TMP=$(mktemp -d /tmp/traza-bench-paje-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

files=()
if [ -d "$DATA/pajeng" ]; then
  files+=("$(ls -S "$DATA"/pajeng/*.trace | while read -r f; do "$PJ_DUMP" -q "$f" >/dev/null 2>&1 && echo "$f" && break; done)")
fi
python3 bench/gen_paje.py "$N" 64 >"$TMP/gen-$N.paje"
files+=("$TMP/gen-$N.paje")

now() { date +%s.%N; }
# CPU time (user+sys) too: the machine may be shared, wall time then includes waits.
cpu_of() { awk '{printf "%.3f", $1 + $2}' "$1"; }
printf '%-40s %10s %10s %10s %8s %10s %10s %8s\n' file lines traza_s pj_dump_s ratio traza_cpu pj_cpu cpu_ratio
for f in "${files[@]}"; do
  [ -n "$f" ] || continue
  lines=$(grep -vc '^%' "$f" || true)
  best_t=; best_p=; best_tc=; best_pc=
  for rep in 1 2 3; do
    rm -rf "$TMP/ws"
    t0=$(now); TRAZA_WORKSPACE=$TMP/ws /usr/bin/time -f "%U %S" -o "$TMP/tc" "$TRAZA" import "$f" --name b >/dev/null; t1=$(now)
    /usr/bin/time -f "%U %S" -o "$TMP/pc" "$PJ_DUMP" "$f" >/dev/null; t2=$(now)
    dt=$(echo "$t1 - $t0" | bc); dp=$(echo "$t2 - $t1" | bc)
    tc=$(cpu_of "$TMP/tc"); pc=$(cpu_of "$TMP/pc")
    if [ -z "$best_t" ] || [ "$(echo "$dt < $best_t" | bc)" = 1 ]; then best_t=$dt; fi
    if [ -z "$best_p" ] || [ "$(echo "$dp < $best_p" | bc)" = 1 ]; then best_p=$dp; fi
    if [ -z "$best_tc" ] || [ "$(echo "$tc < $best_tc" | bc)" = 1 ]; then best_tc=$tc; fi
    if [ -z "$best_pc" ] || [ "$(echo "$pc < $best_pc" | bc)" = 1 ]; then best_pc=$pc; fi
    [ "$lines" -lt 100000 ] || break # one run of the big file is enough
  done
  printf '%-40s %10d %10.3f %10.3f %8.3f %10.3f %10.3f %8.3f\n' "$(basename "$f")" "$lines" "$best_t" "$best_p" \
    "$(echo "$best_t / $best_p" | bc -l)" "$best_tc" "$best_pc" "$(echo "$best_tc / $best_pc" | bc -l)"
done
