#!/usr/bin/env bash
# All hook sites NOP-patched vs uninstrumented, long runs: CPU time of R repetitions
# each (default 5) of bench loop N (default 300M calls, > 1 s), mean ± spread.
# usage: bench/tracer_nop.sh [BUILD]   (N, R by env)
set -eu
B=${1:-build}
[ -f "$B" ] && B=$(dirname "$B")
P=$B/rt/tests
N=${N:-300000000}
R=${R:-5}
W=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$W"' EXIT
"$B/traza" patch "$P/bench.pre" -o "$W/bench.nop" --disable-all -q
"$B/traza" patch "$P/bench.pfe" -o "$W/bench.pfenop" --disable-all -q 2>/dev/null || cp "$P/bench.pfe" "$W/bench.pfenop"
cpu() { python3 -c 'import os,sys,subprocess
p=subprocess.Popen(sys.argv[1:],stdout=subprocess.DEVNULL)
_,_,r=os.wait4(p.pid,0)
print("%.4f"%(r.ru_utime+r.ru_stime))' "$@"; }
declare -A T
for i in $(seq "$R"); do   # interleaved, so load changes hit all variants alike
  for v in plain nop pfenop; do
    case $v in plain) x=$P/bench.plain ;; nop) x=$W/bench.nop ;; pfenop) x=$W/bench.pfenop ;; esac
    T[$v]="${T[$v]:-} $(cpu "$x" loop "$N")"
  done
done
for v in plain nop pfenop; do
  echo "$v ${T[$v]}" | awk '{n=NF-1; s=0; mn=1e9; mx=0; for(i=2;i<=NF;i++){s+=$i; if($i<mn)mn=$i; if($i>mx)mx=$i} printf "%-8s mean %.3f s  min %.3f  max %.3f  (n=%d)\n", $1, s/n, mn, mx, n}'
done | tee "$W/r"
awk '/^plain/{b=$3} /^nop/{n=$3} /^pfenop/{p=$3} END{printf "NOP-patched -pg -mfentry vs plain: %+.2f%%; -fpatchable-function-entry (NOPs) vs plain: %+.2f%%\n", (n-b)/b*100, (p-b)/b*100}' "$W/r"
