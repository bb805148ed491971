#!/usr/bin/env bash
# Grammar compression benchmark: traza against its anchors on the shared PC lists.
#  - Sequitur Size(G) vs the reference sizes (../shared/data/gen/SEQUITUR-REFERENCE.md)
#  - Cyclitur vs Sequitur Size(G) on the MCU trace (goal: >= 12% smaller)
#  - .tzg bytes vs `xz -9` of the same PCs as little-endian 32-bit words
#  - throughput (input symbols per CPU second, goal >= 5 M/s)
#  - speed vs Nevill-Manning's reference sequitur when SEQUITUR_REF=/path/to/sequitur
#    (built outside the repository; never committed)
# usage: bench/grammar.sh [build/traza]
set -u
TRAZA=${1:-build/traza}
DATA=${TRAZA_TEST_DATA:-../shared/data}/gen
OUT=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$OUT"' EXIT
[ -d "$DATA" ] || { echo "bench/grammar.sh: $DATA is absent"; exit 0; }
cpu() { # CPU seconds (user+sys) of a command
  /usr/bin/time -f '%U %S' -o "$OUT/time" "$@" >/dev/null 2>&1
  awk '{print $1+$2}' "$OUT/time"
}
ref_size() { grep -F "| $1 |" "$DATA/SEQUITUR-REFERENCE.md" | awk -F'|' '{gsub(/[ ,]/,"",$4); print $4}'; }

echo "== Sequitur Size(G) vs the reference; .tzg vs xz -9 of LE32 words; throughput"
printf '%-40s %10s %8s %8s %10s %10s %7s %9s\n' file symbols size ref tzg_bytes xz9_bytes ratio Msym/s
for f in pc/mcu/freertos_blinky_icount5.pc.xz pc/linux/armhf-marm/crc32.pc.xz pc/linux/armhf-marm/sha.pc.xz pc/linux/armhf-marm/qsort.pc.xz; do
  [ -r "$DATA/$f" ] || continue
  xz -dc "$DATA/$f" > "$OUT/in.pc"
  n=$(wc -l < "$OUT/in.pc")
  t=$(cpu "$TRAZA" grammar compress "$OUT/in.pc" -o "$OUT/s.tzg" -q)
  size=$("$TRAZA" grammar stats "$OUT/s.tzg" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
  "$TRAZA" grammar decompress "$OUT/s.tzg" --raw32 -o "$OUT/in.le32"
  xzb=$(xz -9 -c "$OUT/in.le32" | wc -c)
  tzb=$(wc -c < "$OUT/s.tzg")
  printf '%-40s %10d %8d %8s %10d %10d %7.3f %9.2f\n' "$f" "$n" "$size" "$(ref_size "$f")" "$tzb" "$xzb" \
    "$(echo "$tzb / $xzb" | bc -l)" "$(echo "$n / $t / 1000000" | bc -l)"
  if [ -n "${SEQUITUR_REF:-}" ] && [ -x "$SEQUITUR_REF" ]; then
    python3 -c 'import sys
for l in open(sys.argv[1]): print(int(l, 16))' "$OUT/in.pc" > "$OUT/in.dec"
    tr=$(cpu sh -c "\"$SEQUITUR_REF\" -d -p -q < \"$OUT/in.dec\" > \"$OUT/ref.txt\"")
    printf '   reference sequitur: %.2f s CPU, traza %.2f s CPU: traza is %.2fx faster\n' "$tr" "$t" "$(echo "$tr / $t" | bc -l)"
  fi
done
[ -n "${SEQUITUR_REF:-}" ] || echo "(speed vs the reference: set SEQUITUR_REF to a reference sequitur binary built outside the repo)"

echo
echo "== Cyclitur vs Sequitur on the cyclic MCU trace (loop header 0x6a4 from gen/README.md, and auto)"
f=$DATA/pc/mcu/freertos_blinky_icount5.pc.xz
if [ -r "$f" ]; then
  xz -dc "$f" > "$OUT/m.pc"
  n=$(wc -l < "$OUT/m.pc")
  s=$("$TRAZA" grammar compress "$OUT/m.pc" -o "$OUT/s.tzg" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
  t=$(cpu "$TRAZA" grammar compress "$OUT/m.pc" -o "$OUT/c.tzg" --algo cyclitur --loop-header 6a4 -q)
  c=$("$TRAZA" grammar stats "$OUT/c.tzg" --json)
  cs=$(echo "$c" | python3 -c 'import json,sys; print(json.load(sys.stdin)["size"])')
  printf 'sequitur Size %d, cyclitur Size %d: %.1f%% smaller; cyclitur %.2f Msym/s; %s\n' "$s" "$cs" \
    "$(echo "100 * (1 - $cs / $s)" | bc -l)" "$(echo "$n / $t / 1000000" | bc -l)" "$c"
  "$TRAZA" grammar compress "$OUT/m.pc" -o "$OUT/a.tzg" --algo cyclitur --loop-header auto 2>&1 | grep '^loop header'
  "$TRAZA" grammar decompress "$OUT/c.tzg" --raw32 -o "$OUT/m.le32"
  printf 'cyclitur .tzg %d bytes vs xz -9 of LE32 words %d bytes\n' "$(wc -c < "$OUT/c.tzg")" "$(xz -9 -c "$OUT/m.le32" | wc -c)"
fi
