#!/usr/bin/env bash
# Runs the whole suite once per build directory given (e.g. build build/asan):
# every cmocka binary under BUILD/tests/, every shell test tests/*/t_*.sh (with
# TRAZA=BUILD/traza), and every fuzz harness replaying its seed corpus.
# Ends with one line a CI reader understands: "N passed, N failed, N skipped".
set -u
cd "$(dirname "$0")/.."
root=$(pwd)
export TRAZA_TEST_DATA=${TRAZA_TEST_DATA:-$root/../shared/data}
export TRAZA_SRC=$root
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$root/tests/lsan.supp
pass=0; fail=0; skip=0; failed_names=(); failed_logs=()
logdir=$(mktemp -d)
trap 'rm -rf "$logdir"' EXIT
# A throwaway PostgreSQL server for the PostgreSQL store backend's tests (they skip,
# visibly, when it cannot start). Stopped at exit, even on failure.
if [ -z "${TRAZA_PG_URI:-}" ]; then
  pgdir=$(mktemp -d /tmp/traza-pg-XXXXXX)
  trap 'bash tests/pg_server.sh stop "$pgdir/srv" >/dev/null 2>&1; rm -rf "$logdir" "$pgdir"' EXIT
  if pg_env=$(bash tests/pg_server.sh start "$pgdir/srv" 2>"$logdir/pg_server.err"); then
    eval "$pg_env"; export TRAZA_PG_URI
    echo "== PostgreSQL test server started (socket in $pgdir/srv)"
  else
    echo "== PostgreSQL test server not started, its tests skip: $(tr '\n' ' ' <"$logdir/pg_server.err")"
  fi
fi

count_cmocka() { # file -> adds to counters
  local f=$1 p s fl
  p=$(grep -aE '^\[  PASSED  \] [0-9]+ test' "$f" | awk '{s+=$4} END{print s+0}')
  s=$(grep -aE '^\[  SKIPPED \] [0-9]+ test' "$f" | awk '{s+=$4} END{print s+0}')
  fl=$(grep -aE '^\[  FAILED  \] [0-9]+ test' "$f" | awk '{s+=$4} END{print s+0}')
  pass=$((pass + p)); skip=$((skip + s)); fail=$((fail + fl))
  NFAILED=$fl
}

for build in "$@"; do
  label=$build
  [ -x "$build/traza" ] || { echo "tests/run.sh: $build/traza is missing: run make first" >&2; exit 1; }
  export TRAZA="$root/$build/traza" TRAZA_BUILD="$root/$build"
  echo "== $label: unit tests"
  for t in $(find "$build/tests" -type f -perm -u+x 2>/dev/null | sort); do
    log="$logdir/$(echo "$t" | tr / _).log"
    ( cd "$root" && timeout 900 "$t" ) >"$log" 2>&1
    rc=$?
    count_cmocka "$log"; nf=$NFAILED
    if [ $rc -ne 0 ] && [ "$nf" -eq 0 ]; then
      fail=$((fail + 1)); nf=1
      echo "   crashed or timed out (exit $rc): $t"
    fi
    if [ "$nf" -gt 0 ]; then
      failed_names+=("$label:$t"); sed 's/^/   | /' "$log" | tail -40
    fi
    grep -a '^\[  SKIPPED \] ' "$log" | grep -v 'test(s)' | sed "s|^|   $t: |"
    printf '   %-48s %s\n' "$t" "$(grep -aE '^\[==========\] [0-9]+ test' "$log" | tail -1 | sed 's/\[==========\] //')"
  done
  echo "== $label: command-line tests"
  rm -rf "$build/differential"
  for s in $(ls tests/*/t_*.sh 2>/dev/null | sort); do
    log="$logdir/$(echo "$label$s" | tr / _).log"
    ( cd "$root" && timeout 900 bash "$s" ) >"$log" 2>&1
    rc=$?
    p=$(grep -ac '^PASS: ' "$log"); f=$(grep -ac '^FAIL: ' "$log"); k=$(grep -ac '^SKIP: ' "$log")
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "FAIL: $s exited $rc" >>"$log"; fi
    pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + k))
    printf '   %-48s %d passed, %d failed, %d skipped\n' "$s" "$p" "$f" "$k"
    grep -a '^SKIP: ' "$log" | sed 's/^/     /'
    if [ "$f" -gt 0 ]; then failed_names+=("$label:$s"); failed_logs+=("$log"); grep -a -B2 -A8 '^FAIL: ' "$log" | sed 's/^/   | /' | tail -60; fi
  done
  echo "== $label: differential suite (traza against each format's reference tool)"
  bash tests/diff_summary.sh "$build"
  echo "== $label: fuzz harnesses on their seed corpora"
  for r in $(find "$build/fuzz-replay" -type f -perm -u+x 2>/dev/null | sort); do
    n=$(basename "$r"); corpus=fuzz/corpus/${n#fuzz_}
    if [ ! -d "$corpus" ]; then echo "SKIP: $n has no corpus at $corpus"; skip=$((skip + 1)); continue; fi
    if timeout 600 "$r" "$corpus" >"$logdir/$n.log" 2>&1; then
      pass=$((pass + 1)); printf '   %-48s ok (%s)\n' "$n" "$(tail -1 "$logdir/$n.log")"
    else
      fail=$((fail + 1)); failed_names+=("$label:$n"); tail -20 "$logdir/$n.log" | sed 's/^/   | /'
    fi
  done
done
if [ "${FUZZ_SECONDS:-0}" -gt 0 ] && ls build/fuzz/fuzz_* >/dev/null 2>&1; then
  echo "== bounded fuzzing: every harness for $FUZZ_SECONDS s (tests/fuzz_bounded.sh)"
  log="$logdir/fuzz_bounded.log"
  bash tests/fuzz_bounded.sh >"$log" 2>&1
  p=$(grep -ac '^PASS: ' "$log"); f=$(grep -ac '^FAIL: ' "$log")
  pass=$((pass + p)); fail=$((fail + f))
  sed 's/^/   /' "$log"
  [ "$f" -gt 0 ] && failed_names+=("bounded fuzzing")
fi
echo
if [ ${#failed_names[@]} -gt 0 ]; then
  echo "failed:"; printf '  %s\n' "${failed_names[@]}"
  # the failed checks again, short, where the last lines of the output show them
  for log in "${failed_logs[@]}"; do
    grep -a -A3 '^FAIL: ' "$log" | cut -c1-300 | head -24 | sed "s|^|  $(basename "$log" .log): |"
  done
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
