#!/usr/bin/env bash
# trace-cmd .dat import against its anchor, on the same files in one run:
#   traza import FILE.dat  vs  trace-cmd report -i FILE.dat > /dev/null
# (both read the file through libtracecmd/libtraceevent; traza also stores every
# event with its fields, trace-cmd formats each as text).
# Usage: bench/tracecmd.sh [TRAZA] [FILE.dat...]
#   (default files: $TRAZA_TEST_DATA/trace-cmd/*/*.dat, else ../shared/data)
#   BIG_MB=110 bench/tracecmd.sh [TRAZA]: one .dat of at least that size, written by
#   bench/tracecmd_big.py from the shared sched_other_trace.dat (its kernel records
#   repeated, shifted in time), for when `trace-cmd record` is not allowed.
# Prints best-of-3 wall-clock seconds, the ratio traza/anchor, and the events/s.
set -u
cd "$(dirname "$0")/.."
TRAZA=$(realpath "${1:-build/traza}")
shift $(($# > 0 ? 1 : 0))
DATA=${TRAZA_TEST_DATA:-../shared/data}
files=("$@")
[ ${#files[@]} -gt 0 ] || files=("$DATA"/trace-cmd/*/*.dat)
command -v trace-cmd >/dev/null || { echo "bench/tracecmd.sh: trace-cmd is not installed" >&2; exit 1; }
[ -f "${files[0]}" ] || [ -n "${BIG_MB:-}" ] || { echo "bench/tracecmd.sh: no .dat file (${files[0]})" >&2; exit 1; }
TMP=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
if [ -n "${BIG_MB:-}" ]; then
  python3 bench/tracecmd_big.py "$DATA/trace-cmd/wsdias-LabSisOp/sched_other_trace.dat" "$TMP/big.dat" $((BIG_MB * 1000000)) >&2 || exit 1
  files=("$TMP/big.dat")
fi
. bench/best.sh
printf '%-42s %12s %12s %9s  %s\n' "input" "traza" "anchor" "ratio" "events, bytes"
tt=0; ta=0
for f in "${files[@]}"; do
  t=$(best "$TRAZA" import "$f" --name bench) || exit 1
  a=$(best sh -c "trace-cmd report -i '$f' > /dev/null") || exit 1
  export TRAZA_WORKSPACE=$TMP/count
  n=$("$TRAZA" import "$f" --name n$RANDOM --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
  printf '%s  %d events, %d bytes\n' "$(row "${f#"$DATA"/}" "$t" "$a")" "$n" "$(stat -c %s "$f")"
  tt=$(echo "$tt + $t" | bc -l); ta=$(echo "$ta + $a" | bc -l)
done
row "all files" "$tt" "$ta"
