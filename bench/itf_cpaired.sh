#!/usr/bin/env bash
# Compression of the Tarmac samples, paired: `xz -9 -T1` and `traza itf compress` on
# the same file, both writing to /dev/null, run in turn N times each (bench/ab.c), so
# that both see the same machine state (and neither pays ext4's cost of replacing an
# existing file, 0.15-0.5 ms); prints the median times and the median of the per-pair speed ratio
# xz / traza (c-spd, >= 20x wanted). With a second binary BASE, also
# traza against BASE (the change of a commit, e.g.).
#   bench/itf_cpaired.sh [TRAZA [BASE]]     N=30 pairs by default
set -eu
cd "$(dirname "$0")/.."
source bench/paired_setup.sh
paired_setup 30 /tmp/itfcpair-XXXXXX "$@"
printf '%-36s %10s %10s %8s %s\n' file xz-9-ms traza-ms c-spd "(medians of $N pairs; c-spd = median of xz/traza)"
for f in "$D"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  "$T" itf compress "$f" -o "$W/$b.tzi" -q
  "$T" itf decompress "$W/$b.tzi" -o "$W/out" && cmp -s "$W/out" "$f" || { echo "ROUND TRIP FAILED on $f"; exit 1; }
  "$W/ab" "$N" -- xz -9 -T1 -c "$f" -- "$T" itf compress "$f" -o /dev/null -q | awk -v n="$b" '{
    printf "%-36s %10.2f %10.2f %7.1fx\n", n, $3, $12, 1 / $21 }'
  if [ -n "$B" ]; then
    "$W/ab" "$N" -- "$B" itf compress "$f" -o /dev/null -q -- "$T" itf compress "$f" -o /dev/null -q |
      awk -v n="$b" '{ printf "%-36s base %.2f ms, traza %.2f ms: %+.1f %%\n", n, $3, $12, ($21 - 1) * 100 }'
  fi
done
