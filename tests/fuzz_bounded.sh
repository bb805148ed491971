#!/usr/bin/env bash
# Bounded fuzzing: every libFuzzer harness of build/fuzz/ (`make fuzz`, clang with
# ASan+UBSan) runs for FUZZ_SECONDS (default 20) on a scratch copy of its seed corpus,
# with a fixed seed. Prints "PASS: fuzz NAME" or "FAIL: fuzz NAME" with the report;
# an input that failed is kept in fuzz/crashes/NAME/ to be added to the corpus with
# its fix. Sourced by tests/run.sh (which counts the lines); `make fuzz-long` runs it
# alone with a longer time.
set -u
cd "$(dirname "$0")/.."
secs=${FUZZ_SECONDS:-20}
scratch=$(mktemp -d /tmp/traza-fuzz-run-XXXXXX)
trap 'rm -rf "$scratch"' EXIT
for h in build/fuzz/fuzz_*; do
  [ -x "$h" ] || continue
  n=$(basename "$h"); corpus=fuzz/corpus/${n#fuzz_}
  mkdir -p "$scratch/$n/corpus" "$scratch/$n/art"
  [ -d "$corpus" ] && cp -r "$corpus/." "$scratch/$n/corpus/"
  if (cd "$scratch/$n" && timeout $((secs + 120)) "$OLDPWD/$h" -seed=1 -max_total_time="$secs" -timeout=25 \
        -rss_limit_mb=2048 -artifact_prefix=art/ corpus >log 2>&1); then
    echo "PASS: fuzz $n ($(grep -aoE 'Done [0-9]+ runs' "$scratch/$n/log" | tail -1) in ${secs} s)"
  else
    mkdir -p "fuzz/crashes/$n"
    cp "$scratch/$n/art/"* "fuzz/crashes/$n/" 2>/dev/null
    echo "FAIL: fuzz $n (input kept in fuzz/crashes/$n/)"
    grep -aE 'ERROR|SUMMARY|runtime error|#0 |#1 |#2 ' "$scratch/$n/log" | head -12 | sed 's/^/  /'
  fi
done
