#!/usr/bin/env bash
# Decompression of the Tarmac samples, paired pair by pair: `xz -dc` of the sample's
# `xz -9` file and `traza itf decompress` of its .tzi, both writing to /dev/null, run
# in turn N times each (bench/ab.c); prints the median times and the median of the
# per-pair speed ratio xz / traza (d-spd, >= 1x wanted). With a second
# binary BASE (which decompresses its own .tzi), also traza against BASE.
# Pairs are steadier than bench/itf_paired.sh's blocks of `perf stat -r 20` on a
# shared VM, whose speed can move by 10 % within a block: enough to put two binaries
# 8 % apart one way where 500 pairs put them 6 % apart the other.
#   bench/itf_dpaired.sh [TRAZA [BASE]]     N=200 pairs by default
set -eu
cd "$(dirname "$0")/.."
source bench/paired_setup.sh
paired_setup 200 /tmp/itfdpair-XXXXXX "$@"
printf '%-36s %9s %9s %7s %s\n' file xz-dc-ms traza-ms d-spd "(medians of $N pairs; d-spd = median of xz/traza)"
for f in "$D"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  xz -9 -T1 -c "$f" >"$W/$b.xz"
  "$T" itf compress "$f" -o "$W/$b.tzi" -q
  "$T" itf decompress "$W/$b.tzi" -o "$W/out" && cmp -s "$W/out" "$f" || { echo "ROUND TRIP FAILED on $f"; exit 1; }
  "$W/ab" "$N" -- xz -dc "$W/$b.xz" -- "$T" itf decompress "$W/$b.tzi" -o /dev/null | awk -v n="$b" '{
    printf "%-36s %9.2f %9.2f %6.2fx\n", n, $3, $12, 1 / $21 }'
  if [ -n "$B" ]; then
    "$B" itf compress "$f" -o "$W/$b.base.tzi" -q
    "$W/ab" "$N" -- "$B" itf decompress "$W/$b.base.tzi" -o /dev/null -- "$T" itf decompress "$W/$b.tzi" -o /dev/null |
      awk -v n="$b" '{ printf "%-36s base %.2f ms, traza %.2f ms: %+.1f %%\n", n, $3, $12, ($21 - 1) * 100 }'
  fi
done
