#!/usr/bin/env bash
# Decompression of the Tarmac samples, paired: `perf stat -r REPS` of `xz -dc` on the
# sample's .xz (xz -9), of traza [and of a second traza binary, e.g. an older commit's]
# on its .tzi, taken in turn, ROUNDS times; prints the mean elapsed ms and the ratio to
# xz. Runs taken in turn see the same machine state, which best-of-3 runs minutes
# apart do not (a shared machine's speed moves by 10-25 % between half hours).
#   bench/itf_paired.sh [TRAZA [BASE_TRAZA]]     ROUNDS=5 REPS=20 by default
set -eu
cd "$(dirname "$0")/.."
T=${1:-build/traza}; B=${2:-}
R=${ROUNDS:-5}; N=${REPS:-20}
D=${TRAZA_TEST_DATA:-../shared/data}/tarmac
command -v perf >/dev/null || { echo "perf is needed (Debian package linux-perf)"; exit 1; }
W=$(mktemp -d /tmp/itfpair-XXXXXX)
trap 'rm -rf "$W"' EXIT
ms() { perf stat -r "$N" "$@" 2>&1 >/dev/null | awk '/elapsed/{printf "%.3f", $1 * 1000}'; }
printf '%-44s %8s %8s %8s %7s %7s\n' file xz-dc traza base d-spd base-d
for f in "$D"/*.tarmac; do
  b=$(basename "$f" .tarmac)
  xz -9 -T1 -c "$f" >"$W/$b.xz"
  "$T" itf compress "$f" -o "$W/$b.tzi" -q
  "$T" itf decompress "$W/$b.tzi" -o "$W/out" && cmp -s "$W/out" "$f" || { echo "ROUND TRIP FAILED on $f"; exit 1; }
  [ -n "$B" ] && "$B" itf compress "$f" -o "$W/$b.base.tzi" -q
  for _ in $(seq "$R"); do
    x=$(ms xz -dc "$W/$b.xz"); t=$(ms "$T" itf decompress "$W/$b.tzi" -o /dev/null)
    o=0; [ -n "$B" ] && o=$(ms "$B" itf decompress "$W/$b.base.tzi" -o /dev/null)
    echo "$x $t $o"
  done | awk -v n="$b" '{x+=$1; t+=$2; o+=$3} END{x/=NR; t/=NR; o/=NR;
    printf "%-44s %8.2f %8.2f %8s %6.2fx %7s\n", n, x, t, o ? sprintf("%.2f", o) : "-", x/t, o ? sprintf("%.2fx", x/o) : "-"}'
done
echo "(mean elapsed ms of perf stat -r $N, $R rounds taken in turn; d-spd = xz-dc / traza; base-d = xz-dc / base)"
