# Timing helpers of the format benchmarks, sourced after TMP is set:
#   best CMD...       best of 3 wall-clock seconds (each run in a fresh workspace; a
#                     failing run aborts the benchmark)
#   row NAME T A      one table line: traza's time, the anchor's, the ratio T/A
now() { date +%s.%N; }
best() { local b=999999 s e t; for _ in 1 2 3; do export TRAZA_WORKSPACE=$TMP/ws$RANDOM$RANDOM; s=$(now);
  "$@" >/dev/null 2>"$TMP/err" || { echo "FAILED: $* ($(head -c 300 "$TMP/err"))" >&2; exit 1; }; e=$(now);
  t=$(echo "$e - $s" | bc -l); if (( $(echo "$t < $b" | bc -l) )); then b=$t; fi; done; echo "$b"; }
row() { printf '%-42s %10.3f s %10.3f s %8.2fx\n' "$1" "$2" "$3" "$(echo "$2 / $3" | bc -l)"; }
