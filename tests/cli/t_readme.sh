#!/usr/bin/env bash
# The README's tutorial (between <!-- tutorial --> and <!-- /tutorial -->) runs as
# written: its fenced ```sh blocks, in order, in one shell, from a folder laid out as
# the sources (build/ and examples/), with a fresh workspace; any non-zero exit fails.
. "$(dirname "$0")/../lib.sh"
case "${TRAZA_BUILD:-}" in
  */asan|*/tsan) skip "README tutorial" "run once, in the plain build's pass"; exit 0 ;;
esac
SRC=${TRAZA_SRC:-.}
# the blocks, each followed by a line the runner recognises
awk '
  /^<!-- tutorial -->$/ { on = 1; next }
  /^<!-- \/tutorial -->$/ { on = 0 }
  on && /^```sh$/ { inb = 1; n++; printf "blk=%d\n", n; next }
  on && inb && /^```$/ { inb = 0; printf "echo \"BLOCK_DONE %d\"\n", n; next }
  on && inb { print }
  END { if (inb) { print "unclosed block" > "/dev/stderr"; exit 1 } }
' "$SRC/README.md" >"$TMP/blocks.sh" || { fail "tutorial blocks extracted" "an unclosed fence"; exit 0; }
n=$(grep -c '^blk=' "$TMP/blocks.sh")
[ "$n" -ge 6 ] && pass "tutorial has $n shell blocks" || fail "tutorial has shell blocks" "found $n"

mkdir -p "$TMP/src"
ln -s "$(cd "$(dirname "$TRAZA")" && pwd)" "$TMP/src/build"
ln -s "$(cd "$SRC/examples" && pwd)" "$TMP/src/examples"
unset TRAZA_WORKSPACE
(
  cd "$TMP/src" || exit 1
  export PATH="$(dirname "$TRAZA"):$PATH"
  trap 'echo "BLOCK_FAILED $blk (exit status $?): $BASH_COMMAND"' ERR
  set -e
  . "$TMP/blocks.sh"
) >"$TMP/out" 2>&1
out=$(cat "$TMP/out")
for i in $(seq 1 "$n"); do
  first=$(awk -v i="$i" '$0 == "blk=" i { getline; print; exit }' "$TMP/blocks.sh")
  case "$out" in
    *"BLOCK_DONE $i"*) pass "tutorial block $i runs: $first" ;;
    *) fail "tutorial block $i runs: $first" "$(grep -m1 BLOCK_FAILED "$TMP/out")" "$(tail -5 "$TMP/out")" ;;
  esac
done
# what the tutorial's comments promise
check_contains "the cause ranking puts flush@disk first" "$out" "   1   1.0000         12  flush@disk  (strong)"
[ -s "$TMP/src/out/tour/report.html" ] && pass "report written in out/tour" || fail "report written in out/tour"
[ -d "$TMP/src/out/tour/ws" ] && pass "the tour's own workspace" || fail "the tour's own workspace"
