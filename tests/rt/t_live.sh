#!/usr/bin/env bash
# Reading a bare-metal target live: the Cortex-M3 firmware rt/tests/cm3/live.c runs on
# QEMU's mps2-an385 board with its gdbstub; `traza record --target gdb://...` stops it
# every poll, reads its ring through the control block and lets it run. Paced, every
# record it wrote arrives (500 calls of work, nothing lost); in a burst that wraps the
# ring between polls, the records read and the lost count add up to what the target
# wrote. A RAM image of the ring (QEMU's pmemsave) imports as format rtram, counted
# the same way; a wrong port or a firmware without the runtime fails with its reason.
. "$(dirname "$0")/../lib.sh"
B=${TRAZA_BUILD:-build}/rt/cm3
if [ ! -f "$B/live.elf" ] || ! command -v qemu-system-arm >/dev/null; then
  skip "live target" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi
B=$(cd "$B" && pwd)
cd "$TMP"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# qemu FW [QEMU OPTIONS...]: the board in the background -> $QPID
qemu() {
  local fw=$1; shift
  timeout 120 qemu-system-arm -M mps2-an385 -nographic -serial none \
    -semihosting-config enable=on,target=native -kernel "$fw" "$@" >qemu.out 2>&1 &
  QPID=$!
}
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; return 1; }
param() { "$TRAZA" info "$1" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"][sys.argv[1]])' "$2"; }
calls() { "$TRAZA" callstack "$1" --json | json_get profile |
  python3 -c 'import json,sys; print(sum(f["calls"] for f in json.load(sys.stdin) if f["name"]==sys.argv[1]))' "$2"; }

# record_live NAME FW: the board halted at reset with its gdbstub, recorded 3 s as trace NAME
record_live() {
  local p; p=$(free_port)
  qemu "$2" -monitor none -gdb "tcp:127.0.0.1:$p" -S
  wait_port "$p"
  check_rc "record --target ($1 firmware)" 0 "$TRAZA" record --target "gdb://127.0.0.1:$p" --elf "$2" \
    --name "$1" --duration 3 --json
  kill "$QPID" 2>/dev/null; wait "$QPID" 2>/dev/null
}

# paced: every record arrives
record_live paced "$B/live.elf"
check_eq "the target wrote 1001 events (500 calls, main's entry)" 1001 "$(printf '%s' "$OUT" | tail -1 | json_get target_events)"
check_eq "every call arrives" 500 "$(calls paced work)"
check_eq "nothing lost" "0 0 1001" \
  "$(param paced rt.lost_events) $(param paced rt.overwritten_blocks) $(param paced rt.events_read)"
check_contains "names from the firmware" "$("$TRAZA" callstack paced --tree | head -3)" "    work"

# burst: the ring wraps between polls; read + lost = written
record_live burst "$B/live-burst.elf"
written=$(printf '%s' "$OUT" | tail -1 | json_get target_events)
check_eq "the target wrote 6001 events" 6001 "$written"
w=$(calls burst work)
check_eq "events read + events lost = events written" "6001 6001" \
  "$(param burst rt.events_written) $(($(param burst rt.events_read) + $(param burst rt.lost_events)))"
check_eq "overwritten blocks counted" yes "$([ "$(param burst rt.overwritten_blocks)" -gt 0 ] && [ "$w" -gt 0 ] && echo yes)"

# a RAM image of the burst firmware's ring (QEMU's monitor: pmemsave), taken while it
# spins after its calls: the ring holds the newest blocks, the rest is counted
(sleep 2; echo stop; echo "pmemsave 0x20000000 0x10000 ram.bin"; sleep 1; echo quit) |
  timeout 60 qemu-system-arm -M mps2-an385 -nographic -serial none -semihosting-config enable=on,target=native \
    -kernel "$B/live-burst.elf" -monitor stdio >qemu.out 2>&1
check_rc "import --format rtram of a RAM image" 0 env TRAZA_RT_EXE="$B/live-burst.elf" "$TRAZA" import --format rtram \
  --name ram ram.bin
w=$(calls ram work)
check_eq "RAM image: events read + events lost = 6001 written" "6001 6001" \
  "$(param ram rt.events_written) $(($(param ram rt.events_read) + $(param ram rt.lost_events)))"
check_eq "RAM image: the newest calls there, the overwritten blocks counted" yes \
  "$([ "$w" -gt 50 ] && [ "$(param ram rt.overwritten_blocks)" -gt 0 ] && echo yes)"
check_rc "a RAM image is detected by its control block" 0 "$TRAZA" import --name ram2 ram.bin
head -c 4096 /dev/zero > zero.bin
check_rc "an image without a control block" 1 "$TRAZA" import --format rtram zero.bin
check_contains "  says what it looked for" "$OUT" "no control block (expected the magic \"TZRC\""

# errors: nothing listening, a firmware without the runtime
P=$(free_port)
check_rc "connection refused" 1 "$TRAZA" record --target "gdb://127.0.0.1:$P" --elf "$B/live.elf"
check_contains "  names the server" "$OUT" "127.0.0.1:$P: cannot connect to the GDB server: Connection refused"
check_rc "a firmware without the runtime" 1 "$TRAZA" record --target "gdb://127.0.0.1:$P" --elf "$B/startup.o"
check_contains "  names the symbol" "$OUT" "no symbol traza_rt_control"
check_rc "a malformed target" 2 "$TRAZA" record --target "tcp://127.0.0.1:$P" --elf "$B/live.elf"
