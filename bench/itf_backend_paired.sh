#!/usr/bin/env bash
# The line model's back ends side by side: each Tarmac sample compressed
# with `--backend xz` (LZMA2 everywhere) and with the default (auto: zstd at level 7
# for the line model); prints both sizes, then the compression and decompression times
# of the two, run in turn N times each (bench/ab.c), as medians and the median of the
# per-pair ratio default / xz (below 1: the default is faster).
#   bench/itf_backend_paired.sh [TRAZA]     N=40 pairs by default
set -eu
cd "$(dirname "$0")/.."
source bench/paired_setup.sh
paired_setup 40 /tmp/itfbpair-XXXXXX "$@"
printf '%-36s %8s %8s %6s %9s %9s %7s %9s %9s %7s\n' file xz-B auto-B size c-xz-ms c-auto-ms c-ratio d-xz-ms d-auto-ms d-ratio
for f in "$D"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  "$T" itf compress "$f" -o "$W/$b.xz.tzi" -q --backend xz
  "$T" itf compress "$f" -o "$W/$b.auto.tzi" -q
  for z in xz auto; do
    "$T" itf decompress "$W/$b.$z.tzi" -o "$W/out" && cmp -s "$W/out" "$f" || { echo "ROUND TRIP FAILED on $f ($z)"; exit 1; }
  done
  sx=$(wc -c <"$W/$b.xz.tzi"); sa=$(wc -c <"$W/$b.auto.tzi")
  c=$("$W/ab" "$N" -- "$T" itf compress "$f" -o /dev/null -q --backend xz -- "$T" itf compress "$f" -o /dev/null -q)
  d=$("$W/ab" "$N" -- "$T" itf decompress "$W/$b.xz.tzi" -o /dev/null -- "$T" itf decompress "$W/$b.auto.tzi" -o /dev/null)
  awk -v n="$b" -v sx="$sx" -v sa="$sa" -v c="$c" -v d="$d" 'BEGIN {
    split(c, C, " "); split(d, E, " ");
    printf "%-36s %8d %8d %+5.1f%% %9.2f %9.2f %7.3f %9.2f %9.2f %7.3f\n", n, sx, sa, (sa / sx - 1) * 100,
      C[3], C[12], C[21], E[3], E[12], E[21] }'
done
