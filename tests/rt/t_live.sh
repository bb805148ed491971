#!/usr/bin/env bash
# Reading a bare-metal target live: the Cortex-M3 firmware rt/tests/cm3/live.c runs on
# QEMU's mps2-an385 board with its gdbstub; `traza record --target gdb://...` stops it
# every poll, reads its ring through the control block and lets it run. Paced, every
# record it wrote arrives (500 calls of work, nothing lost); in a burst that wraps the
# ring between polls, the records read and the lost count add up to what the target
# wrote. A RAM image of the ring (QEMU's pmemsave) imports as format rtram, counted
# the same way; a wrong port or a firmware without the runtime fails with its reason.
# While it records, the trace is in the store and grows (--refresh), read by another
# process, marked rt.recording=1 until the end; a FreeRTOS firmware recorded live has
# its tasks' real names, read from the target.
. "$(dirname "$0")/../lib.sh"
B=${TRAZA_BUILD:-build}/rt/cm3
if [ ! -f "$B/live.elf" ] || ! command -v qemu-system-arm >/dev/null; then
  skip "live target" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi
B=$(cd "$B" && pwd)
SRC=$(cd "${TRAZA_SRC:-.}" && pwd)
BUILD=$(cd "${TRAZA_BUILD:-build}" && pwd)
FREERTOS=${TRAZA_FREERTOS:-$SRC/../shared/freertos/FreeRTOS-Kernel}
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

# record_live NAME FW [OPTIONS...]: the board halted at reset with its gdbstub, recorded 3 s as trace NAME
record_live() {
  local p; p=$(free_port)
  qemu "$2" -monitor none -gdb "tcp:127.0.0.1:$p" -S
  wait_port "$p"
  check_rc "record --target ($1 firmware)" 0 "$TRAZA" record --target "gdb://127.0.0.1:$p" --elf "$2" \
    --name "$1" --duration 3 --json "${@:3}"
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

# growing: the slow firmware calls work() for as long as it runs; the trace is imported
# every 300 ms while it records. Another process reads it twice while the recording
# runs: it is there, marked as being recorded, and holds more events the second time;
# at the end the mark is gone and the trace holds what record says it imported.
p=$(free_port)
qemu "$B/live-slow.elf" -monitor none -gdb "tcp:127.0.0.1:$p" -S
wait_port "$p"
"$TRAZA" record --target "gdb://127.0.0.1:$p" --elf "$B/live-slow.elf" --name grow --duration 8 --refresh 300 --json \
  >grow.json 2>grow.err &
RPID=$!
# events,marker of the trace grow as `traza info` reads it ("" while it is not there)
seen() { "$TRAZA" info grow --json 2>/dev/null |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("%d,%s" % (d["events"], d["params"].get("rt.recording", "-")))' 2>/dev/null; }
first=""; second=""
while kill -0 "$RPID" 2>/dev/null; do
  v=$(seen)
  if [ -z "$first" ] && [ -n "$v" ]; then first=$v
  elif [ -n "$first" ] && [ -n "$v" ] && [ "${v%,*}" -gt "${first%,*}" ]; then second=$v; break; fi
  sleep 0.1
done
wait "$RPID"; rrc=$?
kill "$QPID" 2>/dev/null; wait "$QPID" 2>/dev/null
check_eq "record --refresh 300 exits 0" 0 "$rrc"
check_eq "mid-recording: the trace is in the store, marked rt.recording=1" "yes 1" \
  "$([ "${first%,*}" -gt 0 ] 2>/dev/null && echo yes) ${first#*,}"
check_eq "mid-recording: a later read finds more events, still marked" "yes 1" \
  "$([ "${second%,*}" -gt "${first%,*}" ] 2>/dev/null && echo yes) ${second#*,}"
final=$(seen)
check_eq "at the end: the mark is gone, the events are those record imported" \
  "$(json_get events < grow.json),-" "$final"
check_eq "  imported several times while recording" yes "$([ "$(json_get refreshes < grow.json)" -ge 2 ] && echo yes)"
check_eq "  more events than the mid-recording reads" yes "$([ "${final%,*}" -gt "${second%,*}" ] && echo yes)"

# --refresh 0: imported once, at the end
record_live once "$B/live.elf" --refresh 0
check_eq "--refresh 0: no import while recording" 0 "$(printf '%s' "$OUT" | tail -1 | json_get refreshes)"
check_eq "  every call at the end" 500 "$(calls once work)"

# FreeRTOS: the firmware of tests/rt/t_freertos.sh recorded live, polled every 2 ms
# (the demo runs ~30 ms of its ticks, then exits): its tasks and handlers have the
# names the kernel gave them, read from the target through the runtime's table
if [ ! -f "$FREERTOS/tasks.c" ] || [ ! -f "$BUILD/rt/cm3/libtraza-rt-cm3-rtos.a" ]; then
  skip "live FreeRTOS task names" "no FreeRTOS kernel at $FREERTOS (set TRAZA_FREERTOS) or no RTOS runtime"
else
  FREERTOS=$(cd "$FREERTOS" && pwd)
  check_rc "FreeRTOS firmware builds" 0 make -s -C "$SRC" -f rt/boards/mps2-an385/freertos/freertos.mk \
    FREERTOS="$FREERTOS" BUILD="$BUILD" OUT="$TMP/fw"
  p=$(free_port)
  qemu "$TMP/fw/demo.elf" -monitor none -gdb "tcp:127.0.0.1:$p" -S
  wait_port "$p"
  check_rc "record --target (FreeRTOS firmware, until it exits)" 0 "$TRAZA" record --target "gdb://127.0.0.1:$p" \
    --elf "$TMP/fw/demo.elf" --name rtos --interval 2 --duration 60 --json
  wait "$QPID" 2>/dev/null
  check_eq "every task's and handler's name read" "7 0" \
    "$(printf '%s' "$OUT" | tail -1 | json_get tasks_named) $(printf '%s' "$OUT" | tail -1 | json_get tasks_unnamed)"
  "$TRAZA" query rtos --limit 0 --json > rtos.json
  check_eq "the producers have the kernel's task names, none is 'task N'" \
    "IDLE,ISR SysTick,ISR TIMER0,Tmr Svc,consumer,producer,supervisor,thread 0" \
    "$(python3 -c 'import json; print(",".join(sorted({e["producer"].split("/")[1] for e in json.load(open("rtos.json"))})))')"
  check_eq "  counted: no name left unread" 0 "$(param rtos rt.task_names_unread)"
fi

# errors: a name taken (refused before recording), a bad --refresh
check_rc "a trace name taken" 1 "$TRAZA" record --target "gdb://127.0.0.1:1" --elf "$B/live.elf" --name paced
check_contains "  refused before connecting" "$OUT" "a trace named 'paced' already exists"
check_rc "a bad --refresh" 2 "$TRAZA" record --target "gdb://127.0.0.1:1" --elf "$B/live.elf" --refresh -5
check_contains "  says what it takes" "$OUT" "--refresh is milliseconds in 0..3600000, not '-5'"

# errors: nothing listening, a firmware without the runtime
P=$(free_port)
check_rc "connection refused" 1 "$TRAZA" record --target "gdb://127.0.0.1:$P" --elf "$B/live.elf"
check_contains "  names the server" "$OUT" "127.0.0.1:$P: cannot connect to the GDB server: Connection refused"
check_rc "a firmware without the runtime" 1 "$TRAZA" record --target "gdb://127.0.0.1:$P" --elf "$B/startup.o"
check_contains "  names the symbol" "$OUT" "no symbol traza_rt_control"
check_rc "a malformed target" 2 "$TRAZA" record --target "tcp://127.0.0.1:$P" --elf "$B/live.elf"
