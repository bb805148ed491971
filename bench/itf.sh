#!/usr/bin/env bash
# ITFComp benchmark: traza itf (lossless, default back end) against xz -9, gzip -9,
# bzip2 -9 and zstd -19 --long on the same plain ITF/Tarmac files, side by side.
# Prints sizes, ratios to each tool, geometric means, compression/decompression speed
# against xz, and the latency of extracting 1000 instructions from the middle of a
# large ITF.
#   bench/itf.sh [TRAZA]         TRAZA defaults to build/traza
#   ITF_BENCH_FILES="a.itf.xz b.tarmac"   override the file list
#   ITF_BENCH_BIG=path.itf.xz    the large ITF for the extraction latency
set -eu
cd "$(dirname "$0")/.."
TRAZA=${1:-build/traza}
[ -d "$TRAZA" ] && TRAZA=$TRAZA/traza
D=${TRAZA_TEST_DATA:-../shared/data}
W=$(mktemp -d /tmp/itfbench-XXXXXX)
trap 'rm -rf "$W"' EXIT
FILES=${ITF_BENCH_FILES:-"$D/tarmac/calculator-aarch32-es-ld-st-style.tarmac $D/tarmac/calculator-aarch64-fastmodel.tarmac $D/tarmac/calculator-aarch64-gem5.tarmac $D/tarmac/quicksort.tarmac $D/gen/itf/mcu-cortex-m3/freertos_blinky_icount5.itf.xz $D/gen/itf/armhf-mthumb/dijkstra.itf.xz $D/gen/itf/armhf-mthumb/crc32.itf.xz $D/gen/itf/armhf-marm/sha.itf.xz $D/gen/itf/armhf-marm/bitcount.itf.xz $D/gen/itf/armhf-marm/qsort.itf.xz $D/gen/itf/armhf-marm/crc32.itf.xz"}
BIG=${ITF_BENCH_BIG:-$D/gen/itf/armhf-marm/bitcount.itf.xz}
TH=${ITF_BENCH_THREADS:+--threads $ITF_BENCH_THREADS}   # ITF_BENCH_THREADS=N: traza --threads N
now() { date +%s.%N; }
# race TZI XZ: best of 3 of `traza itf decompress TZI` against `xz -dc XZ`, both to
# /dev/null (dt, dx) and both writing a file (ft, fx: $W/t.out, $W/x.out)
race() {
  dt=999; dx=999; ft=999; fx=999
  local ta tb tc
  for _ in 1 2 3; do
    ta=$(now); "$TRAZA" itf decompress "$1" -o /dev/null $TH; tb=$(now); xz -dc "$2" >/dev/null; tc=$(now)
    dt=$(echo "if ($tb - $ta < $dt) $tb - $ta else $dt" | bc -l); dx=$(echo "if ($tc - $tb < $dx) $tc - $tb else $dx" | bc -l)
    ta=$(now); "$TRAZA" itf decompress "$1" -o "$W/t.out" $TH; tb=$(now); xz -dc "$2" >"$W/x.out"; tc=$(now)
    ft=$(echo "if ($tb - $ta < $ft) $tb - $ta else $ft" | bc -l); fx=$(echo "if ($tc - $tb < $fx) $tc - $tb else $fx" | bc -l)
  done
}
printf '%-44s %11s %9s %9s %9s %9s %9s %7s %7s %7s %6s %6s %6s\n' file plain tzi xz-9 gzip-9 bzip2-9 zstd19L tzi/xz tzi/gz tzi/zst c-spd d-spd d-file
lx=0; lg=0; lz=0; lb=0; n=0; worst=0
for f in $FILES; do
  [ -f "$f" ] || { echo "skip $f (absent)"; continue; }
  b=$(basename "$f"); p=$W/plain
  case "$f" in *.xz) xz -dc "$f" >"$p" ;; *) cp "$f" "$p" ;; esac
  plain=$(stat -c %s "$p")
  ct=999   # traza compression: best of 3 (xz -9 runs once: it is the slow anchor)
  for _ in 1 2 3; do
    t0=$(now); "$TRAZA" itf compress "$p" -o "$W/t.tzi" -q $TH; t1=$(now)
    ct=$(echo "if ($t1 - $t0 < $ct) $t1 - $t0 else $ct" | bc -l)
  done
  "$TRAZA" itf decompress "$W/t.tzi" -o "$W/t.out"
  cmp -s "$p" "$W/t.out" || { echo "ROUND TRIP FAILED on $f"; exit 1; }
  tz=$(stat -c %s "$W/t.tzi")
  t3=$(now); xz -9 -T1 -c "$p" >"$W/x.xz"; t4=$(now)
  x=$(stat -c %s "$W/x.xz")
  # decompression: both to /dev/null, then both to a file, best of 3 each (the machine is shared)
  race "$W/t.tzi" "$W/x.xz"
  rm -f "$W/t.out" "$W/x.out"
  g=$(gzip -9 -c "$p" | wc -c); bz=$(bzip2 -9 -c "$p" | wc -c); z=$(zstd -19 --long -q -c "$p" | wc -c)
  cs=$(echo "($t4 - $t3) / $ct" | bc -l); ds=$(echo "$dx / $dt" | bc -l); fs=$(echo "$fx / $ft" | bc -l)
  printf '%-44s %11d %9d %9d %9d %9d %9d %7.3f %7.3f %7.3f %5.1fx %5.2fx %5.2fx\n' "$b" "$plain" "$tz" "$x" "$g" "$bz" "$z" \
    "$(echo "$tz/$x" | bc -l)" "$(echo "$tz/$g" | bc -l)" "$(echo "$tz/$z" | bc -l)" "$cs" "$ds" "$fs"
  lx=$(echo "$lx + l($tz/$x)" | bc -l); lg=$(echo "$lg + l($tz/$g)" | bc -l)
  lz=$(echo "$lz + l($tz/$z)" | bc -l); lb=$(echo "$lb + l($tz/$bz)" | bc -l); n=$((n + 1))
  [ "$tz" -gt "$x" ] && worst=1
done
[ $n -gt 0 ] && printf 'geometric mean of tzi/xz-9 %.3f  tzi/gzip-9 %.3f  tzi/bzip2-9 %.3f  tzi/zstd-19-long %.3f  (%d files)%s\n' \
  "$(echo "e($lx/$n)" | bc -l)" "$(echo "e($lg/$n)" | bc -l)" "$(echo "e($lb/$n)" | bc -l)" "$(echo "e($lz/$n)" | bc -l)" $n \
  "$([ $worst = 1 ] && echo '  (some file larger than xz -9)')"
echo "(c-spd = xz -9 compression time / best-of-3 traza compress time; d-spd = best-of-3 xz -dc time / traza decompress time, both to /dev/null; d-file: the same, both writing a file; traza uses its default --threads = online CPUs, ITF_BENCH_THREADS overrides)"
if [ -f "$BIG" ]; then
  xz -dc "$BIG" >"$W/big"
  "$TRAZA" itf compress "$W/big" -o "$W/big.tzi" -q $TH
  # decompression of the large ITF against xz -dc of its distributed .xz, best of 3,
  # both to /dev/null and both writing a file
  race "$W/big.tzi" "$BIG"
  cmp -s "$W/t.out" "$W/big" || { echo "ROUND TRIP FAILED on $BIG"; exit 1; }
  rm -f "$W/t.out" "$W/x.out"
  printf 'decompress %s (%d bytes): /dev/null traza %.1f ms, xz -dc %.1f ms (%.2fx); file traza %.1f ms, xz -dc %.1f ms (%.2fx)\n' \
    "$(basename "$BIG")" "$(stat -c %s "$W/big")" "$(echo "$dt * 1000" | bc -l)" "$(echo "$dx * 1000" | bc -l)" "$(echo "$dx / $dt" | bc -l)" \
    "$(echo "$ft * 1000" | bc -l)" "$(echo "$fx * 1000" | bc -l)" "$(echo "$fx / $ft" | bc -l)"
  nl=$("$TRAZA" itf stats "$W/big.tzi" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["instructions"])')
  mid=$((nl / 2))
  sed -n "$((mid + 1)),$((mid + 1000))p" "$W/big" >"$W/want"
  "$TRAZA" itf extract "$W/big.tzi" --from $mid --count 1000 | cmp -s - "$W/want" || { echo "EXTRACT MISMATCH"; exit 1; }
  python3 - "$TRAZA" "$W/big.tzi" "$mid" "$(stat -c %s "$W/big")" <<'PY'
import subprocess, sys, time
tr, f, mid, size = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
ts = []
for i in range(15):
    t = time.perf_counter()
    subprocess.run([tr, "itf", "extract", f, "--from", str(mid), "--count", "1000", "-o", "/dev/null"], check=True)
    ts.append(time.perf_counter() - t)
t = time.perf_counter(); subprocess.run([tr, "--help"], stdout=subprocess.DEVNULL); base = time.perf_counter() - t
ts.sort()
print("extract 1000 instructions at %d of a %.0f MB ITF: median %.1f ms, min %.1f ms per process (traza --help alone: %.1f ms)"
      % (mid, size / 1e6, ts[len(ts) // 2] * 1e3, ts[0] * 1e3, base * 1e3))
PY
  # the library call alone (open + extract, no process start)
  H=${TRAZA_BUILD:-$(dirname "$TRAZA")}/helpers/itf/helper_itftime
  [ -x "$H" ] && "$H" "$W/big.tzi" "$mid" 1000 21
fi
