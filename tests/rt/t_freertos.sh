#!/usr/bin/env bash
# FreeRTOS firmware (rt/boards/mps2-an385/freertos: three tasks, a queue, a software
# timer; the kernel instrumented, its port layer not) built with the RTOS runtime
# (per-task shadow stacks, task-switch records) from the FreeRTOS kernel beside the
# worktree, run on QEMU's mps2-an385; its dump imports as one producer per task with
# its own calls and Running states, as many switches as the firmware counted.
. "$(dirname "$0")/../lib.sh"
SRC=${TRAZA_SRC:-.}
BUILD=$(cd "${TRAZA_BUILD:-build}" && pwd)
FREERTOS=${TRAZA_FREERTOS:-$SRC/../shared/freertos/FreeRTOS-Kernel}
if [ ! -f "$FREERTOS/tasks.c" ]; then
  skip "freertos firmware" "no FreeRTOS kernel at $FREERTOS (set TRAZA_FREERTOS)"; exit 0
fi
if [ ! -f "$BUILD/rt/cm3/libtraza-rt-cm3-rtos.a" ] || ! command -v qemu-system-arm >/dev/null; then
  skip "freertos firmware" "gcc-arm-none-eabi or qemu-system-arm missing (scripts/packages.txt)"; exit 0
fi
FREERTOS=$(cd "$FREERTOS" && pwd)
check_rc "firmware builds (port layer excluded from instrumentation)" 0 \
  make -s -C "$SRC" -f rt/boards/mps2-an385/freertos/freertos.mk FREERTOS="$FREERTOS" BUILD="$BUILD" OUT="$TMP/fw"
FW=$TMP/fw/demo.elf
cd "$TMP"
check_rc "firmware runs to its end under qemu-system-arm" 0 timeout 60 qemu-system-arm -M mps2-an385 -nographic \
  -monitor none -serial none -semihosting-config enable=on,target=native -kernel "$FW"
report=$OUT
check_contains "all items consumed" "$report" "consumed=12"
switches=$(printf '%s\n' "$report" | sed -n 's/^switches=//p')
check_rc "import with the firmware's DWARF" 0 env TRAZA_RT_EXE="$FW" "$TRAZA" import --name fr traza-rt.tzr
info=$("$TRAZA" info fr)
check_contains "nothing lost" "$info" "rt.lost_events = 0"
check_contains "no block overwritten" "$info" "rt.overwritten_blocks = 0"
check_contains "task switches in the trace = the firmware's count ($switches)" "$info" "rt.task_switches = $switches"
"$TRAZA" query fr --limit 0 --json > ev.json
check_eq "Running states = switches" "$switches" \
  "$(python3 -c 'import json; print(sum(1 for e in json.load(open("ev.json")) if e["type"]=="Running"))')"
# every task a producer, its calls rooted at its own task function, each call inside
# its parent's interval on the same producer; Running spans of all tasks in order
python3 - > check.out <<'PY'
import json
evs = json.load(open("ev.json"))
roots = {}
bad = []
calls = {}
runs = []
for e in evs:
    p = e["producer"]
    if e["type"] == "Running":
        runs.append((e["ts"], e["end_ts"], p))
        continue
    calls.setdefault(p, []).append(e)
for p, cs in calls.items():
    cs.sort(key=lambda e: (e["ts"], e["level"]))
    stack = []
    for e in cs:
        if e["end_ts"] < e["ts"]:
            bad.append("end before start: %s" % e["type"])
        lv = e["level"]
        del stack[lv:]
        if lv == 0:
            if e["type"] != "xTaskIncrementTick":  # the tick interrupt's, before the task function
                roots.setdefault(p.split("/")[-1], set()).add(e["type"])
        elif len(stack) < lv or not (stack[lv - 1]["ts"] <= e["ts"] and e["end_ts"] <= stack[lv - 1]["end_ts"]):
            bad.append("%s: %s at level %d outside its caller" % (p, e["type"], lv))
        stack.append(e)
runs.sort()
for a, b in zip(runs, runs[1:]):
    if b[0] < a[1] or a[1] < a[0]:
        bad.append("Running spans overlap: %s %s" % (a, b))
print(" ".join("%s=%s" % (k, ",".join(sorted(v))) for k, v in sorted(roots.items())))
print("problems: %d %s" % (len(bad), bad[:3]))
PY
check_eq "each task a producer, its calls rooted at its function" \
  "IDLE=prvIdleTask Tmr Svc=prvTimerTask consumer=consumer producer=producer supervisor=supervisor thread 0=main" \
  "$(head -1 check.out)"
check_eq "calls nested per task, timestamps monotonic" "problems: 0 []" "$(tail -1 check.out)"
check_contains "clock: the kernel's processor clock (configCPU_CLOCK_HZ)" "$info" "rt.ticks_per_second = 25000000"
