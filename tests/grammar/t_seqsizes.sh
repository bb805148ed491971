#!/usr/bin/env bash
# Sequitur Size(G) on the shared PC lists. The expected values are those of
# Nevill-Manning's reference implementation run with a collision-free digram table
# (same code, its hash function replaced): 2992, 4099, 4404, 8052. The stock reference
# prints 2992, 4103, 4420, 8053 (gen/SEQUITUR-REFERENCE.md): its hash function
# collides, and a slot reused during the recursive substitutions of check() is then
# overwritten (`x[0] = r->first()`), so it forgets a few digrams (bench/RESULTS.md,
# row "grammar sizes"). The 5 M-symbol lists run in the plain build only.
. "$(dirname "$0")/../lib.sh"
G=$DATA/gen/pc
[ -d "$G" ] || { skip "sequitur sizes" "no shared data"; exit 0; }
for spec in mcu/freertos_blinky_icount5:2992 linux/armhf-marm/crc32:4099 linux/armhf-marm/sha:4404 linux/armhf-marm/qsort:8052; do
  f=$G/${spec%%:*}.pc.xz want=${spec##*:}
  [ -r "$f" ] || { skip "Size $spec" "absent"; continue; }
  case "$spec:$TRAZA_BUILD" in linux/*asan*) skip "Size ${spec%%:*}" "plain build only"; continue;; esac
  check_eq "Sequitur Size ${spec%%:*}" "$want" "$($TRAZA grammar compress "$f" -o "$TMP/s.tzg" --json | json_get size)"
done
