#!/usr/bin/env bash
# Temporal aggregation at 20, 200, 2000 and 20000 slices on a generated trace (1 M
# events, 4x4 producer tree, 10 types: 160 series): wall time and peak memory with the
# proposed p (qualities + p list + one partition) and with one p (--p 0.3: no list).
# Above 2000 slices the search runs over 2000 units of consecutive slices
# (doc/analysis.md), so time and memory stop growing with the slice count.
#
# With LPAGGREG_SRC=<lpaggreg source tree or git dir> (github.com/dosimont/lpaggreg, the
# reference implementation), also builds it in the temporary directory, and per slice
# count writes the micro model traza aggregates (`--micro-out`), runs lpaggreg's ordered
# (OLP) aggregation on it through bench/lpaggreg_driver.cpp, and prints:
#  - whether both find the same parts at p = 0.3 and at traza's proposed p, with
#    lpaggreg's raw qualities (the sums traza maximises), and at p = 0.3 with lpaggreg's
#    usual normalised qualities (each divided by the whole interval's: another criterion);
#  - both wall times and peak memories (best of REPEAT runs, default 3) and the ratio,
#    for one p and for the p list (traza's proposed p; lpaggreg's P_OPT).
# Then the same on the paper's example (5 slices, 3 series) against the partitions that
# traza's tests check.
# lpaggreg keeps one heap Quality per interval (n(n+1)/2 of them), so it is run up to
# LPAGGREG_MAX_SLICES (default 2000) slices.
# usage: [LPAGGREG_SRC=DIR] [REPEAT=3] bash bench/aggregate.sh [build/traza]
set -euo pipefail
traza=$(realpath "${1:-build/traza}")
here=$(dirname "$(realpath "$0")")
ws=$(mktemp -d /tmp/traza-bench-agg-XXXXXX)
trap 'rm -rf "$ws"' EXIT
export TRAZA_WORKSPACE=$ws
"$traza" gen --events 1M --tree 4x4 --seed 3 --name g1m >/dev/null
run() { # wall seconds and peak KB of one run
  /usr/bin/time -f "%e s %M KB" "$traza" aggregate g1m "$@" --save b --replace 2>&1 >/dev/null | tail -1; }
if [ -z "${LPAGGREG_SRC:-}" ]; then
  for n in 20 200 2000 20000; do
    echo "slices $n: proposed p $(run --slices "$n"); --p 0.3 $(run --slices "$n" --p 0.3)"
  done
  exit 0
fi

repeat=${REPEAT:-3}
maxn=${LPAGGREG_MAX_SLICES:-2000}
src=$ws/lpaggreg-src
if [ -d "$LPAGGREG_SRC/src/lpaggreg/sources" ]; then
  src=$LPAGGREG_SRC
else # a git dir (bare or not)
  mkdir -p "$src"
  git --git-dir="$LPAGGREG_SRC" archive HEAD | tar -x -C "$src"
fi
lb=$ws/lpaggreg-build
mkdir -p "$lb"
echo "building lpaggreg ($(git --git-dir="$LPAGGREG_SRC" rev-parse --short HEAD 2>/dev/null || echo "$src")) in $lb" >&2
for f in "$src"/src/lpaggreg/sources/*.cpp; do
  g++ -std=c++11 -O2 -w -I"$src/src/lpaggreg/headers" -c "$f" -o "$lb/$(basename "$f" .cpp).o" 2>>"$lb/log" ||
    { cat "$lb/log" >&2; exit 1; }
done
g++ -std=c++11 -O2 -I"$src/src/lpaggreg/headers" "$here/lpaggreg_driver.cpp" "$lb"/*.o -o "$lb/driver"

best() { # best wall seconds and peak KB over N runs of the command (stdout: $ws/out)
  local n=$1 b="" m=""; shift
  for _ in $(seq "$n"); do
    read -r s k < <(/usr/bin/time -f "%e %M" -o "$ws/time" "$@" >"$ws/out"; cat "$ws/time")
    if [ -z "$b" ] || awk -v a="$s" -v b="$b" 'BEGIN{exit !(a < b)}'; then b=$s; fi
    if [ -z "$m" ] || [ "$k" -lt "$m" ]; then m=$k; fi
  done
  echo "$b $m"
}
mb() { echo "${1% *} s $(( ${1#* } / 1024 )) MB"; }
starts() { sed 's/-[0-9]*//g'; } # "0-4 5-9" -> "0 5": the first slice of each part
lstarts() { sed -n "s/^p [^ ]*.* parts [0-9]*: //p" | starts; }
same() { # "agree (N parts)" or "DIFFER (traza N parts, lpaggreg M parts)"
  local a b; a=$(wc -w <<<"$1"); b=$(wc -w <<<"$2")
  if [ "$1" = "$2" ]; then echo "agree ($a parts)"; else echo "DIFFER (traza $a parts, lpaggreg $b parts)"; fi
}
side() { # label, traza "s KB", lpaggreg "s KB"
  read -r ts tk <<<"$2"; read -r ls lk <<<"$3"
  awk -v l="$1" -v ts="$ts" -v tk="$tk" -v ls="$ls" -v lk="$lk" 'BEGIN {
    printf "  %-19s traza %7.2f s %4.0f MB | lpaggreg %7.2f s %4.0f MB | lpaggreg/traza: time %.2fx, memory %.2fx\n",
           l, ts, tk / 1024, ls, lk / 1024, ls / (ts > 0 ? ts : 0.01), lk / tk }'
}
agg() { "$traza" aggregate g1m "$@" --save b --replace; }
# the paper's example (RR-8304 Table 1: 5 slices, 3 series), whose partitions traza's
# tests check: lpaggreg on the raw qualities, then normalised at p = 0.3
printf 'slices 5 series 3\n0 0 3 5 6 1 0\n0 1 6 3 2 2 9\n0 2 7 5 9 7 3\n' >"$ws/paper.txt"
got=$("$lb/driver" "$ws/paper.txt" --p 0.02 --p 0.04 --p 0.06 --p 0.1 --p 0.3 | lstarts | paste -sd /)
want="0 1 2 3 4/0 1 3 4/0 3 4/0 4/0" # 01234, 01123, 00012, 00001, 00000
if [ "$got" = "$want" ]; then verdict="the same as traza's"; else verdict="DIFFERENT ($got) from traza's"; fi
echo "paper example: lpaggreg's parts at p = 0.02 0.04 0.06 0.1 0.3 are $verdict (first slice of each part: $want," \
     "tests/analysis/test_analysis.c); with its normalised qualities at p = 0.3:" \
     "$("$lb/driver" "$ws/paper.txt" --normalize --p 0.3 | sed -n 's/.* parts \([0-9]*\):.*/\1/p') parts instead of 1"
for n in 20 200 2000 20000; do
  m=$ws/micro-$n.txt
  t03=$(agg --slices "$n" --p 0.3 --json --micro-out "$m" | jq -r '[.parts[].first] | join(" ")')
  t1=$(best "$repeat" "$traza" aggregate g1m --slices "$n" --p 0.3 --save b --replace)
  t2=$(best "$repeat" "$traza" aggregate g1m --slices "$n" --save b --replace)
  if [ "$n" -gt "$maxn" ]; then
    units=""; [ "$n" -le 2000 ] || units=" (searched in 2000 units)"
    echo "slices $n$units: traza --p 0.3 $(mb "$t1"), proposed p $(mb "$t2");" \
         "lpaggreg not run: $(( n * (n + 1) / 2 )) heap qualities (n > LPAGGREG_MAX_SLICES=$maxn)"
    continue
  fi
  # traza's p list: each p with the first slice of each of its parts
  "$traza" aggregate g1m --slices "$n" --list-p --json --save b --replace |
    jq -r '.p_list[] | "\(.p) \(.parts as $a | [range(0; $a | length) | select(. == 0 or $a[.] != $a[. - 1])] | join(" "))"' >"$ws/plist"
  lrep=$repeat; [ "$n" -lt 2000 ] || lrep=1
  l1=$(best "$lrep" "$lb/driver" "$m" --p 0.3)
  l03=$(lstarts <"$ws/out")
  # one run: traza's p values on the raw qualities, then lpaggreg's own pipeline
  # (normalised qualities, p list, partition at P_OPT), timed as the p-list mode
  l2=$(best 1 "$lb/driver" "$m" $(awk '{printf " --p %s", $1}' "$ws/plist") --normalize --p 0.3 --plist)
  k=0 agree=0 total=$(wc -l <"$ws/plist")
  while read -r p tstarts; do
    k=$((k + 1))
    [ "$(sed -n "${k}p" "$ws/out" | lstarts)" = "$tstarts" ] && agree=$((agree + 1))
  done <"$ws/plist"
  lnorm=$(sed -n "$((total + 1))p" "$ws/out" | lstarts)
  popt=$(sed -n "$((total + 2))p" "$ws/out" | sed 's/^p \([^ ]*\).*/\1/')
  echo "slices $n: parts at p = 0.3: $(same "$t03" "$l03"); at the $total p of traza's p list: $agree agree;" \
       "lpaggreg's normalised qualities at p = 0.3: $(wc -w <<<"$lnorm") parts; its P_OPT = $popt"
  side "one p (0.3)" "$t1" "$l1"
  side "p list + partition" "$t2" "$l2"
done
echo "(lpaggreg's times include reading the micro model file and, for the p list, evaluating traza's p values;"
echo " traza's include reading the trace store; lpaggreg runs once per configuration at 2000 slices)"
