#!/usr/bin/env bash
# Decompression of the four Tarmac samples against `xz -dc`, phase by phase. A shared
# VM can change speed every few seconds (its slow phases: `xz -dc` on ES above 3.5 ms
# instead of 2.7-2.9). Each row runs `xz -dc` and `traza itf decompress` of each
# sample in rotation, R times each (bench/abn.c), so a row sees one phase; the rows are
# then sorted by the ES `xz -dc` median into normal (< 3.1 ms), between and slow
# (> 3.5 ms), and the mean of the per-row speed ratios xz / traza (d-spd, >= 1x wanted)
# is printed per phase, with the count of rows below 1x.
#   bench/itf_phases.sh [TRAZA]      ROWS=400 rows of R=20 runs by default
set -eu
cd "$(dirname "$0")/.."
T=${1:-build/traza}; ROWS=${ROWS:-400}; R=${R:-20}
D=${TRAZA_TEST_DATA:-../shared/data}/tarmac
W=$(mktemp -d /tmp/itfphase-XXXXXX)
trap 'rm -rf "$W"' EXIT
cc -std=c11 -D_GNU_SOURCE -O2 -o "$W/abn" bench/abn.c
args=()
for b in calculator-aarch32-es-ld-st-style calculator-aarch64-fastmodel calculator-aarch64-gem5 quicksort; do
  xz -9 -T1 -c "$D/$b.tarmac" >"$W/$b.xz"
  "$T" itf compress "$D/$b.tarmac" -o "$W/$b.tzi" -q
  "$T" itf decompress "$W/$b.tzi" -o "$W/out" && cmp -s "$W/out" "$D/$b.tarmac" || { echo "ROUND TRIP FAILED on $b"; exit 1; }
  [ ${#args[@]} -gt 0 ] && args+=(--)
  args+=(xz -dc "$W/$b.xz" -- "$T" itf decompress "$W/$b.tzi" -o /dev/null)
done
for i in $(seq "$ROWS"); do "$W/abn" "$R" "${args[@]}"; done >"$W/rows"
awk 'NF == 8 {
  ph = $1 > 3.5 ? "slow" : $1 > 3.1 ? "between" : "normal"; n[ph]++; x[ph] += $1
  for (k = 0; k < 4; k++) { r = $(1 + 2 * k) / $(2 + 2 * k); s[ph, k] += r; if (r < 1) lo[ph, k]++ }
} END {
  printf "%-8s %5s %9s %8s %8s %8s %8s   %s\n", "phase", "rows", "xz-ES-ms", "ES", "FM", "gem5", "qsort", "rows below 1x (ES FM gem5 qsort)"
  split("normal between slow", o, " ")
  for (i = 1; i <= 3; i++) { p = o[i]; if (!n[p]) continue
    printf "%-8s %5d %9.2f %7.3fx %7.3fx %7.3fx %7.3fx   %d %d %d %d\n", p, n[p], x[p] / n[p], s[p, 0] / n[p], s[p, 1] / n[p],
      s[p, 2] / n[p], s[p, 3] / n[p], lo[p, 0], lo[p, 1], lo[p, 2], lo[p, 3] }
}' "$W/rows"
