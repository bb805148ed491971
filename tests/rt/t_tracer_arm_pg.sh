#!/usr/bin/env bash
# 32-bit ARM -pg under qemu-arm (rt/tests/arm/variadic.c): functions whose prologue
# pushes argument registers before the frame (variadic ones, a structure passed partly
# in registers) return to their caller and are counted exactly, at -O1 and -Os and
# with APCS frames (-mapcs-frame -O2); Thumb code and code without frame pointers
# are not traced, and `traza record` shows the runtime saying which flag to add.
. "$(dirname "$0")/../lib.sh"
A=${TRAZA_BUILD:-build}/rt/arm
if ! command -v qemu-arm >/dev/null || [ ! -x "$A/variadic.O1" ]; then
  skip "arm -pg variadic frames under qemu-arm" "qemu-user or gcc-arm-linux-gnueabihf missing (scripts/packages.txt)"
  exit 0
fi
A=$(cd "$A" && pwd)
cd "$TMP"
output='step 0 of loop
step 1 of loop
step 2 of loop
blend 1.5 2.0
large 7
main 1 2 3 4 56 4.50'
# main's calls, indented by depth; at -Os and -O2 (apcs) step and large end in a tail
# call (`b log_msg`), which runs after its caller's exit, as a sibling
tree() {
  local in='      '
  [ "$1" != O1 ] && in='    '
  printf '  main\n'
  for i in 0 1 2; do printf '    step\n%slog_msg\n' "$in"; done
  printf '    sum2\n    sum3\n    sum4\n    split\n    blend\n      log_msg\n    large\n%slog_msg\n    log_msg' "$in"
}
for o in O1 Os apcs; do
  check_rc "$o: runs under qemu-arm, exit 0" 0 env TRAZA_RT_OUT=$o.tzr qemu-arm "$A/variadic.$o"
  check_eq "$o: the logger's output" "$output" "$OUT"
  check_rc "$o: import" 0 "$TRAZA" import --name v$o $o.tzr
  check_eq "$o: exact call counts" "blend=1 large=1 log_msg=6 main=1 split=1 step=3 sum2=1 sum3=1 sum4=1" \
    "$("$TRAZA" callstack v$o --json | json_get profile | python3 -c 'import json,sys; print(" ".join("%s=%d" % (f["name"], f["calls"]) for f in sorted(json.load(sys.stdin), key=lambda f: f["name"])))')"
  check_eq "$o: nesting (each exit where its function returned)" "$(tree $o)" \
    "$("$TRAZA" callstack v$o --tree | sed 1d)"
  check_eq "$o: no unmatched exit, no overflow" "0 0" \
    "$("$TRAZA" info v$o --json | python3 -c 'import json,sys; p=json.load(sys.stdin)["params"]; print(p["rt.unmatched_exits"], p["rt.shadow_overflow"])')"
done

check_rc "thumb -pg: record writes no dump" 1 "$TRAZA" record -o thumb.tzr -- qemu-arm "$A/variadic.thumb"
check_contains "thumb -pg: the runtime says to add -marm" "$OUT" \
  "traza-rt: the program was compiled as Thumb: add -marm"
check_eq "thumb -pg: said once" "1" "$(printf '%s\n' "$OUT" | grep -c '^traza-rt:')"
check_contains "thumb -pg: record points at the runtime's reason" "$OUT" "without writing thumb.tzr (the runtime said why, above)"
check_eq "thumb -pg: no vaguer guess after it" "" "$(printf '%s\n' "$OUT" | grep 'was it compiled with')"
check_contains "thumb -pg: the program runs as built" "$OUT" "$output"
check_rc "no frame pointer: record writes no dump" 1 "$TRAZA" record -o nofp.tzr -- qemu-arm "$A/variadic.nofp"
check_contains "no frame pointer: the runtime says to add -fno-omit-frame-pointer" "$OUT" \
  "traza-rt: frame pointers are missing: add -fno-omit-frame-pointer"
check_eq "no frame pointer: said once" "1" "$(printf '%s\n' "$OUT" | grep -c '^traza-rt:')"
check_eq "no frame pointer: no vaguer guess after it" "" "$(printf '%s\n' "$OUT" | grep 'was it compiled with')"
check_contains "no frame pointer: the program runs as built" "$OUT" "$output"
