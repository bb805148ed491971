#!/usr/bin/env bash
# scripts/demo.sh (make demo) into a temp folder: every step runs and prints its key
# result, within two minutes; a failing command stops it with a non-zero status.
. "$(dirname "$0")/../lib.sh"
case "${TRAZA_BUILD:-}" in
  */asan|*/tsan) skip "demo" "run once, in the plain build's pass"; exit 0 ;;
esac
SRC=${TRAZA_SRC:-.}
start=$SECONDS
if bash "$SRC/scripts/demo.sh" "$TRAZA" "$TMP/demo" >"$TMP/out" 2>&1; then
  pass "demo runs to the end"
else
  fail "demo runs to the end" "$(tail -5 "$TMP/out")"
fi
took=$((SECONDS - start))
[ "$took" -lt 120 ] && pass "demo takes under two minutes (${took}s)" || fail "demo takes under two minutes" "${took}s"
out=$(cat "$TMP/out")
check_eq "nine steps, each with a header" "9" "$(grep -c '^== [1-9]\. ' "$TMP/out")"

# 1. the recorded C program: its output and its call counts (exact: the runs are the same)
check_contains "sensor ran under the tracer" "$out" "200 frames, crc total 24395"
check_contains "sensor profile: read_sample calls" "$out" "$(printf '%-30s%13s' read_sample 12800)"
check_contains "sensor call graph" "$out" "checksum -> crc8_byte: 12800,"
check_contains "sensor call graph: log_summary every 64th frame" "$out" "process_frame -> log_summary: 4,"
# 2. the Cortex-M firmware, when the cross compiler and qemu are there
if [ -f "$(dirname "$TRAZA")/rt/cm3/firmware.elf" ] && command -v qemu-system-arm >/dev/null; then
  check_contains "firmware imported" "$out" "imported 'firmware' (rtdump): 44 events"
  check_contains "firmware call graph" "$out" "main -> critical_update: 2,"
else
  check_contains "firmware step skipped with a reason" "$out" "skipped: "
fi
# 3. the bundled examples
check_contains "Pajé example imported" "$out" "imported 'board' (paje): 306 events"
check_contains "KPTrace example imported" "$out" "imported 'kernel' (kptrace): 403 events"
# 4-5. ITFComp: the extract is the middle of the input
check_contains "instruction trace made" "$out" "firmware.itf: 164854 instructions"
check_contains "ITF dialect detected" "$out" "dialect        gen (block model)"
check_contains "extract from the middle" "$out" "0x0000064a str r0, [r3, r1, lsl #2] mem=0x20000054
0x0000064e pop {r4, pc} mem=0x20001fe8 mem=0x20001fec"
check_eq "6 instructions extracted" "6" "$(cat "$TMP/demo/middle.itf" 2>/dev/null | wc -l)"
check_contains "extract checked against the input" "$out" "the same 6 lines as lines 82001-82006 of firmware.itf"
# 6. Cyclitur: the cycle summary and the rare cycles
check_contains "cycle summary" "$out" "loop header 0x504: 4001 cycles, 4 distinct"
check_contains "error iterations are a rare cycle" "$out" "C3: 2 occurrence(s), length 49, first at 50877"
check_contains "unusual sequence ranked first" "$out" "#1 [50836, 50926) score 11.9: C1 C3"
# 7. anomalies and the cause ranking
check_contains "anomalies found" "$out" "240 anomalies, saved as event set 'anomalies:read@net:duration'"
check_contains "the injected cause ranks first" "$out" "rank        r     events  series
   1   1.0000         12  flush@disk  (strong)"
# 8-9. the report and the serve command
check_contains "report written" "$out" "$TMP/demo/report.html"
check_contains "report holds the traces" "$(grep -o 'flush\|board\|sensor' "$TMP/demo/report.html" | sort -u | tr '\n' ' ')" "board flush sensor"
check_contains "serve command printed" "$out" "  $TRAZA serve -w $TMP/demo/workspace"
check_eq "the grammar is in the workspace folder (listed by serve)" "yes" "$([ -s "$TMP/demo/workspace/firmware.tzg" ] && echo yes)"

# A command that fails stops the demo with a non-zero status and says where.
cat >"$TMP/broken" <<SH
#!/bin/sh
[ "\$1" = grammar ] && { echo "broken on purpose" >&2; exit 1; }
exec "$TRAZA" "\$@"
SH
chmod +x "$TMP/broken"
check_rc "a failing step stops the demo" 1 bash "$SRC/scripts/demo.sh" "$TMP/broken" "$TMP/demo2"
check_contains "the failure is reported" "$OUT" "demo: FAILED (exit status 1): traza grammar compress firmware.pc"
case "$OUT" in *"== 7."*) fail "nothing runs after the failing step" ;; *) pass "nothing runs after the failing step" ;; esac

# The output folder is emptied only when a former demo made it.
mkdir -p "$TMP/mine" && echo keep >"$TMP/mine/file"
check_rc "a folder that is not the demo's is refused" 1 bash "$SRC/scripts/demo.sh" "$TRAZA" "$TMP/mine"
check_contains "refusal says why" "$OUT" "is not empty and not a demo folder"
check_eq "its files are kept" "keep" "$(cat "$TMP/mine/file")"
