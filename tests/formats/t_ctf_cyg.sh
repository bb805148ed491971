#!/usr/bin/env bash
# LTTng cyg-profile traces (gcc -finstrument-functions through lttng-ust-cyg-profile and
# its _fast variant): every func_entry is one call of `traza callstack`, on its thread
# (vtid), named by address; calls never exited end at their thread's last event and
# are counted (cyg.unended_calls), exits without their entry are skips
# (skipped.unmatched_func_exits, --strict fails). The counts are babeltrace2's.
. "$(dirname "$0")/../lib.sh"
need_feature ctf "CTF cyg-profile import"
C=$DATA/tracecompass-ctf/cyg-profile
if [ ! -d "$C" ]; then skip "cyg-profile call stacks" "shared data absent"; exit 0; fi
if ! command -v babeltrace2 >/dev/null; then skip "cyg-profile call stacks" "babeltrace2 not installed"; exit 0; fi
calls() { "$TRAZA" callstack "$1" --json | python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin)["profile"]))'; }
param() { "$TRAZA" info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"].get(sys.argv[1], "absent"))' "$2"; }
i=0
for d in glxgears-cyg-profile glxgears-cyg-profile-fast; do
  i=$((i + 1))
  entries=$(babeltrace2 "$C/$d" 2>/dev/null | grep -c ':func_entry:')
  exits=$(babeltrace2 "$C/$d" 2>/dev/null | grep -c ':func_exit:')
  check_rc "$d: strict import" 0 "$TRAZA" import "$C/$d" --name "c$i" --strict
  check_contains "$d: the calls never exited are said" "$OUT" "$((entries - exits)) function call(s) without a recorded exit end at their thread's last event"
  check_diff "$d: calls = babeltrace2 func_entry events" CTF babeltrace2 "cyg-profile/$d (calls)" "$entries" "$(calls "c$i")"
  check_eq "$d: cyg.unended_calls" "$((entries - exits))" "$(param "c$i" cyg.unended_calls)"
  check_eq "$d: no exit without its entry" absent "$(param "c$i" skipped.unmatched_func_exits)"
  check_eq "$d: the calls are on the thread (procname -> vtid)" "loki/glxgears/tid" \
    "$("$TRAZA" callstack "c$i" --tree | sed -n 's/^\(loki\/glxgears\/tid\) .*/\1/p' | head -1)"
done
check_eq "the first call of the _fast trace, at depth 0, by address" "0x40472b" \
  "$("$TRAZA" callstack c2 --json | python3 -c 'import json,sys; print([e["callee"] for e in json.load(sys.stdin)["callgraph"] if e["caller"] is None][0])')"

# The trace cut at its start: the first packet of the stream holding the first calls
# removed, so 3 exits come without their entry.
mkdir -p "$TMP/cut" && cp "$C/glxgears-cyg-profile/"* "$TMP/cut/" && chmod u+w "$TMP/cut/"*
tail -c +94209 "$C/glxgears-cyg-profile/channel0_2" >"$TMP/cut/channel0_2"
entries=$(babeltrace2 "$TMP/cut" 2>/dev/null | grep -c ':func_entry:')
check_rc "cut trace: import" 0 "$TRAZA" import "$TMP/cut" --name cut
check_contains "cut trace: exits without their entry reported" "$OUT" "skipped 3 function exits without a recorded entry (no call)"
check_eq "cut trace: calls = func_entry events" "$entries" "$(calls cut)"
check_eq "cut trace: skipped.unmatched_func_exits in info" 3 "$(param cut skipped.unmatched_func_exits)"
before=$("$TRAZA" list --json)
check_rc "cut trace: --strict fails" 1 "$TRAZA" import "$TMP/cut" --name cut2 --strict
check_contains "cut trace: --strict says why" "$OUT" "a strict import takes every event: skipped 3 function exits without a recorded entry (no call)"
check_eq "cut trace: a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"

# --elf names the functions; a file that is not ELF is refused before any import.
printf 'not elf' >"$TMP/notelf"
check_rc "--elf of a non-ELF file fails" 1 "$TRAZA" import "$C/glxgears-cyg-profile" --name e --elf "$TMP/notelf"
check_contains "--elf of a non-ELF file: the error" "$OUT" "notelf: not an ELF file with function symbols"
if command -v as >/dev/null && command -v ld >/dev/null; then
  # a program whose function "draw" (32 bytes at 0x404720) holds the first address
  printf '.text\n.globl draw\n.type draw,@function\ndraw: .skip 32\n.size draw,32\n' >"$TMP/f.s"
  as "$TMP/f.s" -o "$TMP/f.o" && ld -Ttext=0x404720 -e draw "$TMP/f.o" -o "$TMP/f.elf"
  check_rc "--elf: import" 0 "$TRAZA" import "$C/glxgears-cyg-profile-fast" --name e --elf "$TMP/f.elf"
  check_eq "--elf: the function it holds named, the others by address" "  draw
    0x403d60" "$("$TRAZA" callstack e --tree | sed -n 2,3p)"
else
  skip "--elf naming" "binutils (as, ld) not installed"
fi

# --symbols: nm's output (the symbol map the trace comes with) names the functions.
M=$C/cyg-profile-mapping.txt
if [ -f "$M" ]; then
  check_rc "--symbols: import" 0 "$TRAZA" import "$C/glxgears-cyg-profile" --name s --symbols "$M"
  check_eq "--symbols: the first calls by name" "loki/glxgears/tid 16073:
  main
    make_window
    query_vsync" "$("$TRAZA" callstack s --tree | head -4)"
  check_eq "--symbols: draw_frame calls = its func_entry events" \
    "$(babeltrace2 "$C/glxgears-cyg-profile" 2>/dev/null | grep ':func_entry:' | grep -c 'addr = 0x403760,')" \
    "$("$TRAZA" callstack s --json | python3 -c 'import json,sys; print([f["calls"] for f in json.load(sys.stdin)["profile"] if f["name"] == "draw_frame"][0])')"
else
  skip "--symbols" "cyg-profile-mapping.txt absent"
fi
printf '0000000000403760 t draw_frame\nzz T main\n' >"$TMP/bad.sym"
check_rc "--symbols: a malformed table fails" 1 "$TRAZA" import "$C/glxgears-cyg-profile" --name sb --symbols "$TMP/bad.sym"
check_contains "--symbols: where and what" "$OUT" "bad.sym:2: expected 'ADDR [SIZE] TYPE NAME' (hexadecimal address), found 'zz T main'"
