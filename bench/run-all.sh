#!/usr/bin/env bash
# make bench: runs every benchmark script in bench/ (each runs traza and its anchor
# side by side on the same input and prints the ratio). Slow: minutes, not seconds.
# bench/RESULTS.md keeps each benchmark's last ratio, with its command and date.
set -u
traza=${1:-build/traza}
cd "$(dirname "$0")/.."
rc=0
for b in bench/*.sh; do
  [ "$(basename "$b")" = run-all.sh ] && continue
  echo "== $b"
  bash "$b" "$traza" || { echo "benchmark $b failed" >&2; rc=1; }
done
exit $rc
