#!/usr/bin/env bash
# Selection by patching on bare-metal Cortex-M3: the firmware rt/tests/cm3/select.c is
# built with -fpatchable-function-entry=3 (three 16-bit NOPs per function) and the
# runtime's tz_pfe_entry; `traza patch --enable` turns chosen sites into
# `push {lr}; bl tz_pfe_entry` (Thumb-2 BL), the firmware runs on QEMU's mps2-an385
# board and prints its own call counts through semihosting: the trace holds exactly
# the enabled functions, with those counts.
. "$(dirname "$0")/../lib.sh"
FW=${TRAZA_BUILD:-build}/rt/cm3/select.elf
if [ ! -f "$FW" ] || ! command -v qemu-system-arm >/dev/null; then
  skip "cortex-m3 selection by patching" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi
FW=$(cd "$(dirname "$FW")" && pwd)/$(basename "$FW")
cd "$TMP"
run_fw() { # run_fw ELF: runs it in its own directory, prints the firmware's counts
  rm -rf "run.$1" && mkdir "run.$1" && (cd "run.$1" && timeout 60 qemu-system-arm -M mps2-an385 -nographic \
    -monitor none -serial none -semihosting-config enable=on,target=native -kernel "../$1")
}
counts() { # counts TRACE: name=calls of the traced functions, sorted by name
  "$TRAZA" callstack "$1" --json | json_get profile | python3 -c \
    'import json,sys; print(" ".join("%s=%d"%(f["name"],f["calls"]) for f in sorted(json.load(sys.stdin),key=lambda f:f["name"])))'
}
# the firmware's own counts, as built (all sites NOPs)
check_rc "patch --list on the firmware" 0 "$TRAZA" patch "$FW" --list --json
check_eq "8 sites from __patchable_function_entries, all NOPs" "8 0" \
  "$(printf '%s' "$OUT" | json_get sites) $(printf '%s' "$OUT" | json_get enabled)"
cp "$FW" fw.nop
check_rc "unpatched firmware runs" 0 run_fw fw.nop
own=$(printf '%s\n' "$OUT" | grep -v '^wide_result' | tr '\n' ' ' | sed 's/ $//')
check_eq "the firmware's own call counts" \
  "crc_byte=8 critical_update=2 fact=5 filter=8 process=8 sensor_read=8 wide=1" "$own"
check_rc "import the unpatched trace (user events only)" 0 env TRAZA_RT_EXE="$PWD/fw.nop" "$TRAZA" import --name nop \
  run.fw.nop/traza-rt.tzr
check_eq "unpatched: no function traced" "" "$(counts nop)"

# two functions: a leaf called 8 times and a recursion 5 deep
check_rc "enable two functions" 0 "$TRAZA" patch "$FW" -o fw.two --disable-all --enable '^filter$,^fact$'
check_eq "patch reports the selection" "fw.two: 2 of 8 functions traced" "$OUT"
check_eq "an enabled site: push {lr}; bl tz_pfe_entry (Thumb-2 BL)" "b500 push {lr} | bl <tz_pfe_entry>" \
  "$(arm-none-eabi-objdump -d fw.two | awk -F'\t' '/<filter>:/{on=1;next} on&&NF>2{sub(/ +$/,"",$2); t=$4; sub(/^[0-9a-f]+ /,"",t); printf "%s%s", (n?" | ":$2" "), $3 (t?" "t:""); if (++n==2) exit}')"
check_rc "patched firmware runs" 0 run_fw fw.two
check_eq "same results with two functions traced" \
  "$(printf '%s\n' "$own" | tr ' ' '\n'; echo "wide_result_hi=6"; echo "wide_result_lo=26")" "$OUT"
check_rc "import the two-function trace" 0 env TRAZA_RT_EXE="$PWD/fw.two" "$TRAZA" import --name two run.fw.two/traza-rt.tzr
check_eq "only the two functions, with the firmware's counts" "fact=5 filter=8" "$(counts two)"
check_eq "the recursion nests 5 deep" "5" "$("$TRAZA" callstack two --tree | grep -c ' fact$')"
check_eq "deepest fact at depth 5" "          fact" "$("$TRAZA" callstack two --tree | grep ' fact$' | tail -1)"

# every function: the counts of all, stacked arguments and a 64-bit result kept
check_rc "enable all" 0 "$TRAZA" patch fw.two -o fw.all --enable '.*'
check_rc "all-enabled firmware runs" 0 run_fw fw.all
check_eq "wide(1..6) = 6<<32 | 26 with the hook before its prologue" "wide_result_hi=6
wide_result_lo=26" "$(printf '%s\n' "$OUT" | grep '^wide_result')"
check_rc "import the full trace" 0 env TRAZA_RT_EXE="$PWD/fw.all" "$TRAZA" import --name all run.fw.all/traza-rt.tzr
check_eq "every function, with the firmware's counts" \
  "crc_byte=8 critical_update=2 fact=5 filter=8 main=1 process=8 sensor_read=8 wide=1" "$(counts all)"
check_eq "process calls filter and crc_byte under main" "  main
    sensor_read
    process
      filter
      crc_byte" "$("$TRAZA" callstack all --tree | sed -n 2,6p)"
info=$("$TRAZA" info all)
check_contains "no shadow-stack overflow" "$info" "rt.shadow_overflow = 0"
check_contains "no unmatched exit" "$info" "rt.unmatched_exits = 0"

# back to NOPs: the bytes as built
check_rc "disable all" 0 "$TRAZA" patch fw.all -o fw.off --disable-all
check_rc "all-NOP bytes as built" 0 cmp "$FW" fw.off

# two NOPs per function leave no room for the 6-byte call: said so
B=$(dirname "$FW")
check_rc "firmware with -fpatchable-function-entry=2" 0 arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O1 -ffreestanding \
  -fpatchable-function-entry=2 -I"$TRAZA_SRC/rt/include" -c "$TRAZA_SRC/rt/tests/cm3/select.c" -o two.o
check_rc "link it" 0 arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -nostdlib -T "$TRAZA_SRC/rt/boards/mps2-an385/link.ld" \
  -Wl,-u,tz_pfe_entry -o fw.short "$B/startup.o" two.o "$B/libtraza-rt-cm3.a" -lgcc
check_rc "patch refuses two-NOP sites" 1 "$TRAZA" patch fw.short --list
check_contains "the message says which flag" "$OUT" \
  "fewer than three 16-bit NOPs, no room for \`push {lr}; bl tz_pfe_entry\` (6 bytes): build with -fpatchable-function-entry=3"
