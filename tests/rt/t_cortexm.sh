#!/usr/bin/env bash
# Bare-metal Cortex-M3: the firmware (rt/tests/cm3, runtime linked, -finstrument-
# functions) runs on QEMU's mps2-an385 board, writes its buffer through semihosting;
# `traza import` of that dump gives nested calls named from the firmware's DWARF.
. "$(dirname "$0")/../lib.sh"
FW=${TRAZA_BUILD:-build}/rt/cm3/firmware.elf
if [ ! -f "$FW" ] || ! command -v qemu-system-arm >/dev/null; then
  skip "cortex-m3 firmware" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi
FW=$(cd "$(dirname "$FW")" && pwd)/$(basename "$FW")
cd "$TMP"
check_rc "firmware runs under qemu-system-arm" 0 timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none \
  -serial none -semihosting-config enable=on,target=native -kernel "$FW"
check_eq "dump written through semihosting" "TZRDUMP" "$(head -c 7 traza-rt.tzr 2>/dev/null)"
check_rc "import with the firmware's DWARF" 0 env TRAZA_RT_EXE="$FW" "$TRAZA" import --name fw traza-rt.tzr
tree=$("$TRAZA" callstack fw --tree)
expect='firmware.elf[0]/thread 0:
  main
    sensor_read
    process
      filter
      crc_byte
    sensor_read
    process
      filter
      crc_byte
    sensor_read
    process
      filter
      crc_byte
    sensor_read
    process
      filter
      crc_byte
    critical_update'
check_eq "nesting and names (first iterations)" "$expect" "$(printf '%s\n' "$tree" | head -19)"
check_eq "recursion nested 4 deep" "4 1" "$(printf '%s\n' "$tree" | grep -cE '^ +fact$') $(printf '%s\n' "$tree" | grep -c '^          fact$')"
prof=$("$TRAZA" callstack fw --json | json_get profile)
check_eq "call counts" "crc_byte=8 critical_update=2 fact=4 filter=8 main=1 process=8 sensor_read=8" \
  "$(printf '%s' "$prof" | python3 -c 'import json,sys; print(" ".join("%s=%d"%(f["name"],f["calls"]) for f in sorted(json.load(sys.stdin),key=lambda f:f["name"])))')"
info=$("$TRAZA" info fw)
check_contains "calibrated clock" "$info" "rt.clock = calibrated ns"
check_contains "the dump names its clock (QEMU's Cortex-M3 has no DWT cycle counter)" "$info" \
  "rt.clock_source = SysTick (programmed by the runtime)"
check_contains "nothing lost" "$info" "rt.lost_events = 0"
check_eq "user events: 2 critical sections x 2 + 1" "5" "$("$TRAZA" info fw --json | json_get categories.punctual)"
check_contains "source file from DWARF" "$("$TRAZA" query fw --type filter --limit 1 --json)" "firmware.c"
