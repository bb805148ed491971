#!/usr/bin/env bash
# The paper's text ITF in the block model: crc32's generated ITF from ../shared/data
# written in the paper's form (bench/itf_paper.py, 5 M instructions), compressed by
# traza (lossless, default back end) against xz -9 -T1 on the same file: sizes and
# times, and the round trip checked.
#   bench/itf_paper.sh [TRAZA]   (OLD=path/to/another/traza: the same for it, side by side)
set -eu
cd "$(dirname "$0")/.."
TRAZA=${1:-build/traza}
D=${TRAZA_TEST_DATA:-../shared/data}
W=$(mktemp -d /tmp/itfpaper-XXXXXX)
trap 'rm -rf "$W"' EXIT
xz -dc "$D/gen/itf/armhf-marm/crc32.itf.xz" | python3 bench/itf_paper.py >"$W/crc.paper"
echo "input: $(wc -l <"$W/crc.paper") lines, $(wc -c <"$W/crc.paper") bytes"
run() { # NAME BINARY
  local t0 t1 t2
  t0=$(date +%s.%N); "$2" itf compress "$W/crc.paper" -o "$W/c.tzi" -q; t1=$(date +%s.%N)
  "$2" itf decompress "$W/c.tzi" -o "$W/c.out"; t2=$(date +%s.%N)
  cmp -s "$W/c.out" "$W/crc.paper" || { echo "$1: ROUND TRIP FAILED"; exit 1; }
  printf '%-8s %10d bytes  compress %.2f s  decompress %.2f s  (%s)\n' "$1" "$(wc -c <"$W/c.tzi")" \
    "$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t1" | bc -l)" "$("$2" itf stats "$W/c.tzi" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print("version %d, %s model" % (d["version"], d["model"]))')"
}
run traza "$TRAZA"
[ -n "${OLD:-}" ] && run old "$OLD"
t0=$(date +%s.%N); xz -9 -T1 -c "$W/crc.paper" >"$W/c.xz"; t1=$(date +%s.%N)
printf '%-8s %10d bytes  compress %.2f s\n' "xz -9" "$(wc -c <"$W/c.xz")" "$(echo "$t1 - $t0" | bc -l)"
