#!/usr/bin/env bash
# 32-bit ARM under qemu-arm: (1) Thumb-2 and ARM code built with
# -fpatchable-function-entry (=3 / =2): `traza patch --enable` turns the NOPs into
# `push {lr}; bl/blx tz_pfe_entry`, a hook before the prologue that replaces the return
# address (exits through the trampoline: nesting, recursion, 64-bit and double return
# values, longjmp, tail call); (2) `traza patch` on ARM -pg programs (`push {lr}; bl
# __gnu_mcount_nc`, disabled as `pop {lr}`), ARM and Thumb-2.
. "$(dirname "$0")/../lib.sh"
A=${TRAZA_BUILD:-build}/rt/arm
if ! command -v qemu-arm >/dev/null || [ ! -x "$A/pfe.thumb" ]; then
  skip "arm patchable entries under qemu-arm" "qemu-user or gcc-arm-linux-gnueabihf missing (scripts/packages.txt)"
  exit 0
fi
A=$(cd "$A" && pwd)
cd "$TMP"
names() { "$TRAZA" callstack "$1" --json | json_get profile | python3 -c 'import json,sys; print(" ".join(sorted(f["name"] for f in json.load(sys.stdin))))'; }
# the calls of the program's thread (the one running main), indented by depth
tree() {
  local th
  th=$("$TRAZA" callstack "$1" --tree | awk '/^[^ ]/{th=$0} /^  main$/{print th}')
  "$TRAZA" callstack "$1" --tree | awk -v th="$th" '$0==th{on=1;next} /^[^ ]/{on=0} on'
}
expect='  main
    outer
      leaf
      wide
        leaf
      fib
        fib
          fib
            fib
        fib
    wide
      leaf
    scale
      leaf
    catcher
      thrower
        thrower
          thrower
      leaf
    tail_caller
    tail_target'
plain=$(qemu-arm "$A/pfe.plain" 3)
check_eq "plain program output" "outer=11
wide=206158430212
scale=10.375
tail=41" "$plain"
for m in thumb arm; do
  check_rc "$m pfe: list sites" 0 "$TRAZA" patch "$A/pfe.$m" --list --json
  check_eq "$m pfe: 11 sites from __patchable_function_entries" "11" "$(printf '%s' "$OUT" | json_get sites)"
  check_eq "$m pfe: all NOPs as built" "0" "$(printf '%s' "$OUT" | json_get enabled)"
  check_eq "$m pfe: unpatched runs like the plain build" "$plain" "$(TRAZA_RT_OUT=$m.none.tzr qemu-arm "$A/pfe.$m" 3)"
  check_rc "$m pfe: enable all" 0 "$TRAZA" patch "$A/pfe.$m" -o $m.all --enable '.*'
  check_rc "$m pfe: run patched under qemu-arm" 0 env TRAZA_RT_OUT=$m.all.tzr qemu-arm ./$m.all 3
  check_eq "$m pfe: return values (r0-r1, d0) and arguments kept" "$plain" "$OUT"
  check_rc "$m pfe: import" 0 "$TRAZA" import --name ${m}all $m.all.tzr
  check_eq "$m pfe: exits by return address: nesting, names, longjmp, tail call" "$expect" "$(tree ${m}all)"
  check_eq "$m pfe: no shadow-stack overflow, no unmatched exit" "0 0" \
    "$("$TRAZA" info ${m}all --json | python3 -c 'import json,sys; p=json.load(sys.stdin)["params"]; print(p["rt.shadow_overflow"], p["rt.unmatched_exits"])')"
  check_rc "$m pfe: recursion beyond the shadow stack" 0 env TRAZA_RT_OUT=$m.deep.tzr qemu-arm ./$m.all 3 300
  check_eq "$m pfe: deep recursion result" "deep=300" "$OUT"
  check_rc "$m pfe: import deep" 0 "$TRAZA" import --name ${m}deep $m.deep.tzr
  check_eq "$m pfe: 256 frames traced (main + 255 deep), 46 counted as overflow" "256 46" \
    "$("$TRAZA" callstack ${m}deep --json | json_get profile | python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)))') $("$TRAZA" info ${m}deep --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["rt.shadow_overflow"])')"
  check_rc "$m pfe: --only" 0 "$TRAZA" patch "$A/pfe.$m" -o $m.sel --only '^(wide|fib)$'
  check_rc "$m pfe: run selection" 0 env TRAZA_RT_OUT=$m.sel.tzr qemu-arm ./$m.sel 3
  check_rc "$m pfe: import selection" 0 "$TRAZA" import --name ${m}sel $m.sel.tzr
  check_eq "$m pfe: only the selected functions" "fib wide" "$(names ${m}sel)"
  check_rc "$m pfe: back to NOPs" 0 "$TRAZA" patch $m.all -o $m.nop --disable-all
  check_rc "$m pfe: all-NOP bytes as built" 0 cmp "$A/pfe.$m" $m.nop
done

# -pg: ARM code (prog.armpg, from t_tracer.sh's build): sites decoded from the text
P=$A/prog.armpg
check_rc "arm -pg: list sites" 0 "$TRAZA" patch "$P" --list --json
check_eq "arm -pg: 9 sites (push {lr}; bl __gnu_mcount_nc)" "9 9" \
  "$(printf '%s' "$OUT" | json_get sites) $(printf '%s' "$OUT" | json_get enabled)"
check_rc "arm -pg: disable all" 0 "$TRAZA" patch "$P" -o pg.off --disable-all
check_eq "arm -pg: a site becomes push {lr}; ldr lr, [sp], #4" "e52de004 e49de004" \
  "$(arm-linux-gnueabihf-objdump -d pg.off 2>/dev/null | awk '/<fact>:/{on=1;next} on&&/e52de004/{getline n; split(n,a," "); print "e52de004", a[2]; exit}')"
check_rc "arm -pg: all off runs" 0 env TRAZA_RT_OUT=pg.off.tzr qemu-arm ./pg.off 4
check_eq "arm -pg: all off output" "fact=24
tail=41" "$OUT"
check_rc "arm -pg: import all-off dump" 0 "$TRAZA" import --name pgoff pg.off.tzr
check_eq "arm -pg: all off: zero function events (user events only)" "" "$(names pgoff)"
check_rc "arm -pg: --only fact" 0 "$TRAZA" patch "$P" -o pg.fact --only '^fact$'
check_rc "arm -pg: run selection" 0 env TRAZA_RT_OUT=pg.fact.tzr qemu-arm ./pg.fact 4
check_rc "arm -pg: import selection" 0 "$TRAZA" import --name pgfact pg.fact.tzr
check_eq "arm -pg: only fact" "fact" "$(names pgfact)"
check_rc "arm -pg: --only deep" 0 "$TRAZA" patch "$P" -o pg.deep --only '^deep$'
check_rc "arm -pg: run recursion" 0 env TRAZA_RT_OUT=pg.deep.tzr qemu-arm ./pg.deep 4 5
check_rc "arm -pg: import recursion" 0 "$TRAZA" import --name pgdeep pg.deep.tzr
check_eq "arm -pg: deep(5..0) nests 6 deep, nothing else" "deep deep deep deep deep deep 6" \
  "$("$TRAZA" callstack pgdeep --tree | awk '/deep$/{printf "%s ", $1; n = length($0) - length("deep")} END{print n/2}')"
check_rc "arm -pg: enable again" 0 "$TRAZA" patch pg.off -o pg.on --enable '.*'
check_rc "arm -pg: re-enabled bytes identical to the -pg build" 0 cmp "$P" pg.on

# -pg Thumb-2: `ldr.w lr, [sp], #4` when off; the runtime does not trace Thumb -pg code
# (its frames do not say where lr was saved), so only switching off/on is checked
check_rc "thumb -pg: list sites" 0 "$TRAZA" patch "$A/pfe.thumbpg" --list --json
check_eq "thumb -pg: 11 sites, all on" "11 11" "$(printf '%s' "$OUT" | json_get sites) $(printf '%s' "$OUT" | json_get enabled)"
check_rc "thumb -pg: disable all" 0 "$TRAZA" patch "$A/pfe.thumbpg" -o tpg.off --disable-all
check_eq "thumb -pg: a site becomes push {lr}; ldr.w lr, [sp], #4" "b500 f85d eb04" \
  "$(arm-linux-gnueabihf-objdump -d tpg.off 2>/dev/null | awk '/<wide>:/{on=1;next} on&&/\tb500 /{getline n; split(n,a,"\t"); print "b500", a[2]; exit}' | sed 's/ *$//')"
check_rc "thumb -pg: all off runs" 0 qemu-arm ./tpg.off 3
check_eq "thumb -pg: all off output" "$plain" "$OUT"
check_rc "thumb -pg: enable again" 0 "$TRAZA" patch tpg.off -o tpg.on --enable '.*'
check_rc "thumb -pg: re-enabled bytes identical to the -pg build" 0 cmp "$A/pfe.thumbpg" tpg.on
check_rc "patch: ARM program with no sites" 1 "$TRAZA" patch "$A/pfe.plain" --list
check_contains "patch: no sites message" "$OUT" "no hook call sites"
