#!/usr/bin/env bash
# Tracer benchmark: traza's runtime vs `uftrace record` on the same -pg -mfentry
# binary (build/rt/tests/bench.pre): a loop calling a small non-inlined function N
# times, and a recursive fib. Prints CPU time per traced call (entry + exit),
# bytes stored per call, and the all-NOP patched binary vs the uninstrumented one.
# usage: bench/tracer.sh [BUILD] (N=10000000 FIB=30 UFTRACE=uftrace by env)
set -eu
B=${1:-build}
[ -f "$B" ] && B=$(dirname "$B")   # accepts build/ or build/traza
TRAZA=$B/traza
P=$B/rt/tests
N=${N:-10000000}
FIB=${FIB:-30}
UFTRACE=${UFTRACE:-uftrace}
W=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$W"' EXIT
cpu() { # cpu seconds (user+sys of the command and its children, microsecond resolution)
  python3 -c 'import os,sys,subprocess
p=subprocess.Popen(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.DEVNULL)
_,_,r=os.wait4(p.pid,0)
print("%.6f"%(r.ru_utime+r.ru_stime))' "$@"
}
best() { # best of 3 runs
  local b=999999 v
  for i in 1 2 3; do v=$(cpu "$@"); b=$(awk -v a="$b" -v c="$v" 'BEGIN{print (c<a)?c:a}'); done; echo "$b"
}
calls_fib() { awk -v n="$1" 'BEGIN{a=1;b=1;for(i=2;i<=n;i++){c=a+b+1;a=b;b=c} print b}'; }
"$TRAZA" patch "$P/bench.pre" -o "$W/bench.nop" --disable-all -q
for wl in "loop $N" "fib $FIB"; do
  set -- $wl
  if [ "$1" = loop ]; then calls=$((N + 1)); else calls=$(($(calls_fib "$2") + 1)); fi
  base=$(best "$P/bench.plain" "$@")
  nop=$(best "$W/bench.nop" "$@")
  pre=$(best "$P/bench.pre" "$@")
  tz=$(best "$TRAZA" record --mode stream -q -o "$W/d.tzr" -- "$P/bench.pre" "$@")
  tzb=$(stat -c %s "$W/d.tzr")
  if command -v "$UFTRACE" >/dev/null; then
    uf=$(best "$UFTRACE" record -d "$W/uft" "$P/bench.pre" "$@")
    ufb=$(du -sb "$W/uft" | cut -f1)
  else uf=nan; ufb=0; fi
  awk -v wl="$wl" -v c="$calls" -v base="$base" -v nop="$nop" -v pre="$pre" -v tz="$tz" -v tzb="$tzb" -v uf="$uf" -v ufb="$ufb" 'BEGIN{
    printf "%s (%d calls)\n", wl, c;
    printf "  uninstrumented %.4fs, -pg -mfentry unhooked (glibc __fentry__) %.4fs, all hooks NOP-patched %.4fs (%+.1f%%)\n", base, pre, nop, (nop-base)/(base>0?base:1)*100;
    printf "  traza record:  %.1f ns/call, %.2f bytes/call\n", (tz-base)*1e9/c, tzb/c;
    if (uf != "nan") printf "  uftrace record: %.1f ns/call, %.2f bytes/call\n  ratio uftrace/traza: cost %.2fx, size %.2fx\n", (uf-base)*1e9/c, ufb/c, (uf-base)/(tz-base), ufb/tzb;
  }'
done
