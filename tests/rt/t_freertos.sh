#!/usr/bin/env bash
# FreeRTOS firmware (rt/boards/mps2-an385/freertos: three tasks, a queue, a software
# timer, a timer interrupt; the kernel instrumented, its port layer not) built with
# the RTOS runtime (per-task and per-handler shadow stacks, switch, handler and state
# records) from the FreeRTOS kernel beside the worktree, run on QEMU's mps2-an385.
# Its dump imports as one producer per task with its own calls and
# Running/Ready/Blocked/Suspended states, one per interrupt handler with the calls
# made in it, checked against the switch log the firmware's trace macros kept.
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
check_contains "the clock said in the dump (QEMU's Cortex-M3 has no DWT cycle counter)" "$info" \
  "rt.clock_source = SysTick (as the RTOS programs it)"
check_contains "clock: the kernel's processor clock (configCPU_CLOCK_HZ)" "$info" "rt.ticks_per_second = 25000000"
printf '%s\n' "$report" | grep '^sw ' > switches.log
check_eq "the firmware logged every switch" "$switches" "$(wc -l < switches.log)"
irqs=$(printf '%s\n' "$report" | sed -n 's/^irqs=//p')
timer=$(printf '%s\n' "$report" | sed -n 's/^timer=//p')
# Each task and handler a producer, its calls rooted at its own function, nested only
# among themselves; the tasks' states against the firmware's switch log.
python3 - "$irqs" "$timer" > check.out <<'PY'
import json, sys
irqs, timer = int(sys.argv[1]), int(sys.argv[2])
evs = json.load(open("ev.json"))
STATES = ("Running", "Ready", "Blocked", "Suspended")
roots, bad, calls, spans, counts = {}, [], {}, {}, {}
for e in evs:
    parts = e["producer"].split("/")
    if e["type"] in STATES:
        if parts[-1] != "state":
            bad.append("state %s on %s" % (e["type"], e["producer"]))
        spans.setdefault(parts[-2], []).append((e["ts"], e["end_ts"], e["type"]))
        continue
    p = parts[-1]
    calls.setdefault(p, []).append(e)
    counts[(p, e["type"])] = counts.get((p, e["type"]), 0) + 1
for p, cs in calls.items():
    cs.sort(key=lambda e: (e["ts"], e["level"]))
    stack = []
    for e in cs:
        if e["end_ts"] < e["ts"]:
            bad.append("end before start: %s" % e["type"])
        lv = e["level"]
        del stack[lv:]
        e["parent"] = stack[lv - 1]["type"] if 0 < lv <= len(stack) else None
        if lv == 0:
            roots.setdefault(p, set()).add(e["type"])
        elif len(stack) < lv or not (stack[lv - 1]["ts"] <= e["ts"] and e["end_ts"] <= stack[lv - 1]["end_ts"]):
            bad.append("%s: %s at level %d outside its caller" % (p, e["type"], lv))
        stack.append(e)
print(" ".join("%s=%s" % (k, ",".join(sorted(v))) for k, v in sorted(roots.items())))
# calls where they belong, as many as the firmware made
print("sample_in_irq=%d/%d produce_item=%d consume_item=%d on_timer=%d/%d" % (
    counts.get(("ISR TIMER0", "sample_in_irq"), 0), irqs, counts.get(("producer", "produce_item"), 0),
    counts.get(("consumer", "consume_item"), 0), counts.get(("Tmr Svc", "on_timer"), 0), timer))
# (a task's xTaskResumeAll replays the ticks pended while the scheduler was suspended)
print("outside their handler: %d" % sum(1 for p, cs in calls.items() if not p.startswith("ISR ") for e in cs
      if e["type"] in ("sample_in_irq", "xTaskIncrementTick", "xTaskGetTickCountFromISR")
      and not (e["type"] == "xTaskIncrementTick" and e["parent"] == "xTaskResumeAll")))
# the switch log: "sw <out> <state> <in>"; the tasks switched in, in order, and each
# task's state sequence: created Ready, Running at each switch in, at each switch out
# the state the kernel's lists gave it, Ready again before it runs after blocking
log = [l.rstrip("\n")[3:] for l in open("switches.log")]
name = {"R": "Ready", "B": "Blocked", "S": "Suspended"}
expect, order = {}, []
def add(task, st):
    seq = expect.setdefault(task, ["Ready"])
    if st == "Running" and seq[-1] != "Ready":
        seq.append("Ready")
    seq.append(st)
import re
for l in log:
    m = re.match(r"(.+) ([RBS-]) (.+)$", l)
    out, st, inn = m.groups()
    if out != "main":
        add(out, name[st])
    add(inn, "Running")
    order.append(inn)
runs = sorted((s for t, ss in spans.items() for s in ss if s[2] == "Running"), key=lambda s: s[0])
got_order = [t for s in runs for t, ss in spans.items() if s in ss]
if got_order != order:
    bad.append("switch order differs: %s vs %s" % (got_order[:8], order[:8]))
for t, ss in spans.items():
    ss.sort()
    got = [s[2] for s in ss]
    want = expect.get(t, [])
    # a task the end finds Blocked may have been made Ready after the last switch
    if got != want and not (got[:-1] == want and want[-1:] == ["Blocked"] and got[-1] == "Ready"):
        bad.append("%s states %s, the log says %s" % (t, got, want))
    for a, b in zip(ss, ss[1:]):
        if a[1] != b[0] or a[1] < a[0]:
            bad.append("%s: state spans not contiguous %s %s" % (t, a, b))
for a, b in zip(runs, runs[1:]):
    if b[0] < a[1] or a[1] < a[0]:
        bad.append("Running spans overlap: %s %s" % (a, b))
print("tasks with states: %s" % " ".join(sorted(spans)))
print("problems: %d %s" % (len(bad), bad[:3]))
PY
check_eq "each task and handler a producer, its calls rooted at its function" \
  "IDLE=prvIdleTask ISR SysTick=xTaskIncrementTick ISR TIMER0=sample_in_irq Tmr Svc=prvTimerTask consumer=consumer producer=producer supervisor=supervisor thread 0=main" \
  "$(sed -n 1p check.out)"
check_eq "calls counted where the firmware made them" \
  "sample_in_irq=$irqs/$irqs produce_item=12 consume_item=12 on_timer=$timer/$timer" "$(sed -n 2p check.out)"
check_eq "no handler call nested in the task it interrupted" "outside their handler: 0" "$(sed -n 3p check.out)"
check_eq "states for the five tasks" "tasks with states: IDLE Tmr Svc consumer producer supervisor" "$(sed -n 4p check.out)"
check_eq "states = the firmware's switch log; calls nested per producer; timestamps monotonic" \
  "problems: 0 []" "$(tail -1 check.out)"
