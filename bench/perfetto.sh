#!/usr/bin/env bash
# Perfetto protobuf export against the Chrome JSON export of the same trace: bytes
# written and best-of-3 wall-clock seconds of `traza export`, and the import of each
# file back (perfetto importer vs chrome importer).
# Usage: [PERFETTO_BENCH_EVENTS=1000000] bench/perfetto.sh [TRAZA]
set -u
cd "$(dirname "$0")/.."
TRAZA=$(realpath "${1:-build/traza}")
N=${PERFETTO_BENCH_EVENTS:-1000000}
TMP=$(mktemp -d /tmp/traza-bench-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
export TRAZA_WORKSPACE=$TMP/ws
now() { date +%s.%N; }
best() { local b=999999 s e t; for _ in 1 2 3; do s=$(now);
  "$@" >/dev/null 2>"$TMP/err" || { echo "FAILED: $* ($(head -c 300 "$TMP/err"))" >&2; exit 1; }; e=$(now);
  t=$(echo "$e - $s" | bc -l); if (( $(echo "$t < $b" | bc -l) )); then b=$t; fi; done; echo "$b"; }
"$TRAZA" gen --events "$N" --params 2 --name bench >/dev/null || exit 1
tp=$(best "$TRAZA" export bench --format perfetto -o "$TMP/b.pftrace") || exit 1
tc=$(best "$TRAZA" export bench --format chrome -o "$TMP/b.json") || exit 1
bp=$(stat -c %s "$TMP/b.pftrace"); bc_=$(stat -c %s "$TMP/b.json")
n=0; imp() { n=$((n + 1)); "$TRAZA" import "$1" --name "r$n$RANDOM"; }
ip=$(best imp "$TMP/b.pftrace") || exit 1
ic=$(best imp "$TMP/b.json") || exit 1
printf '%s events (traza gen --params 2)\n' "$N"
printf '%-22s %14s %14s %9s\n' "" "perfetto" "chrome" "ratio"
printf '%-22s %14d %14d %8.2fx\n' "bytes" "$bp" "$bc_" "$(echo "$bp / $bc_" | bc -l)"
printf '%-22s %12.3f s %12.3f s %8.2fx\n' "export time" "$tp" "$tc" "$(echo "$tp / $tc" | bc -l)"
printf '%-22s %12.3f s %12.3f s %8.2fx\n' "import time" "$ip" "$ic" "$(echo "$ip / $ic" | bc -l)"
