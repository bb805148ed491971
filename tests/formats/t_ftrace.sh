#!/bin/bash
# ftrace text import (the kernel's trace file, `trace-cmd report` output): the
# fixtures' exact states and events, and, differentially, the text `trace-cmd report`
# prints of each shared .dat file against the .dat import of that file.
. "$(dirname "$0")/../lib.sh"

fix="$TRAZA_SRC/tests/fixtures/ftrace"
# type,category,producer,level,cpu,params per event, in time order
rows() { "$TRAZA" export "$1" --format csv -o - 2>/dev/null | tail -n +2 | cut -d, -f2-; }
# counts per type, category and producer
counts() { "$TRAZA" export "$1" --format csv -o - 2>/dev/null | tail -n +2 | cut -d, -f4-6 | sort | uniq -c | sed 's/^ *//'; }

# function_graph without absolute times: calls laid end to end by their durations,
# the context switch gives the thread, the irq marker is a skip
out=$("$TRAZA" import "$fix/graph.txt" 2>&1)
check_contains "graph: detected as ftrace" "$out" "(ftrace): 7 events, 3 producers"
check_contains "graph: the irq marker is a skip" "$out" "skipped 1 function_graph irq markers and comments"
check_eq "graph: the calls as nested states" "0,370000,getname,state,CPU 0,,2,,0,
0,3000000,do_sys_open,state,CPU 0,,1,,0,
0,12000000,sys_open,state,CPU 0,,0,,0,
0,4000000,kfree,state,CPU 1,,0,,1,
370000,1870000,fd_install,state,CPU 0,,2,,0,
12000000,14000000,pick_next_task,state,sshd (567),,1,,0,
12000000,17000000,schedule,state,sshd (567),,0,,0," "$(rows graph)"

# the trace file of the nop tracer: scheduling, irqs, syscalls, other events
# through stdin (with detection), a lost-events line a counted skip
out=$("$TRAZA" import --name events - <"$fix/events.txt" 2>&1)
check_contains "events from stdin: detected as ftrace" "$out" "(ftrace): 7 events, 3 producers"
check_contains "events: the lost events are a skip" "$out" "skipped 7 events the kernel dropped"
check_eq "events: states and parameters" "5134532012000,5134534100000,running,state,CPU 1,,0,,1,comm=swapper/1;pid=0;prio=120;prev_comm=bash;prev_pid=1234;prev_state=1
5134532100000,5134532150000,irq,state,CPU 1,,0,,1,irq=30;name=arch_timer
5134532160000,5134532190000,softirq,state,CPU 1,,0,,1,vec=1;name=TIMER
5134533000000,5134533400000,syscall,state,sshd (567),,0,,0,id=63
5134533500000,5134533900000,syscall,state,sshd (567),,0,,0,name=openat
5134534000000,,sched_wakeup,punctual,sshd (567),,,,0,comm=bash;pid=1234;prio=120;target_cpu=001
5134534100000,,function,punctual,sshd (567),,,,0,func=do_sys_open;parent=__x64_sys_openat" "$(rows events)"
check_contains "events: the skip is in info" "$("$TRAZA" info events)" "skipped.lost_events = 7"
before=$("$TRAZA" list 2>&1)
check_rc "events --strict: the skip fails the import" 1 "$TRAZA" import --strict --format ftrace --name strict "$fix/events.txt"
check_contains "events --strict: says what was skipped" "$OUT" "7 events the kernel dropped"
check_eq "events --strict: the workspace is unchanged" "$before" "$("$TRAZA" list 2>&1)"

# a damaged line: file:line, expected and found
{ head -9 "$fix/events.txt"; echo "          <idle>-0     [001] d.h1  5134.532150: irq_handler_exit: ret=handled"; } >"$TMP/bad.txt"
check_rc "bad line fails" 1 "$TRAZA" import --format ftrace "$TMP/bad.txt"
check_contains "bad line: file:line, expected, found" "$OUT" "bad.txt:10: expected irq_handler_exit field irq=N, found 'ret=handled'"
printf 'bash-12 [000] 1.000001: sched_switch: x\nno task here\n' >"$TMP/bad2.txt"
check_rc "bad head fails" 1 "$TRAZA" import --format ftrace "$TMP/bad2.txt"
check_contains "bad head: names the line and what was expected" "$OUT" "bad2.txt:1: expected sched_switch"
check_eq "bad input: the workspace is unchanged" "$before" "$("$TRAZA" list 2>&1)"

# differential: `trace-cmd report` (and its raw-field form -R) of each shared .dat
# file imports to the events and producers of the .dat import of the same file
dir="$DATA/trace-cmd"
need_feature trace-cmd "ftrace text against trace-cmd .dat"
if [ ! -d "$dir" ]; then
  skip "ftrace text against trace-cmd .dat" "$dir is absent"; exit 0
fi
if ! command -v trace-cmd >/dev/null; then
  skip "ftrace text against trace-cmd .dat" "trace-cmd is not installed"; exit 0
fi
i=0
for f in "$dir"/*/*.dat; do
  i=$((i + 1))
  base=${f#"$dir"/}
  "$TRAZA" import --name "dat$i" "$f" >/dev/null 2>&1 || { fail "import $base" "$("$TRAZA" import --name "dat$i" "$f" 2>&1)"; continue; }
  want=$(counts "dat$i")
  ref=$(trace-cmd report -i "$f" 2>/dev/null | grep -c ': *[a-z_]*: ')
  for raw in "" -R; do
    trace-cmd report $raw -i "$f" >"$TMP/r.txt" 2>/dev/null
    out=$("$TRAZA" import --name "txt$i$raw" "$TMP/r.txt" 2>&1)
    check_contains "$base report $raw: detected as ftrace" "$out" "(ftrace)"
    check_eq "$base report $raw: events per type and producer as the .dat import" "$want" "$(counts "txt$i$raw")"
    n=$("$TRAZA" info "txt$i$raw" | awk '/^events:/ {print $2}')
    check_diff "$base report $raw: as many events as trace-cmd report's event lines" ftrace "trace-cmd report $raw" "$base (text)" "$ref" "$n"
  done
  # -t: ns timestamps, so each event is the .dat import's (times, type, producer,
  # level, CPU; parameters differ in kind: text against the format's integers)
  # Once in some CI runs under ASan this import came out empty; what failed is kept in
  # the log (trace-cmd's status and lines, traza's message) and the pair is made once more.
  for try in 1 2; do
    trace-cmd report -t -i "$f" >"$TMP/t.txt" 2>"$TMP/t.err"; trc=$?
    if out=$("$TRAZA" import --name "ns$i" "$TMP/t.txt" 2>&1); then break; fi
    echo "note: $base report -t, try $try: trace-cmd exit $trc, $(wc -l <"$TMP/t.txt") lines, $(head -c 300 "$TMP/t.err"); traza import: $(printf '%s' "$out" | head -c 600)"
  done
  check_eq "$base report -t: every event as the .dat import's" "$(rows "dat$i" | cut -d, -f1-9 | md5sum)" "$(rows "ns$i" | cut -d, -f1-9 | md5sum)"
done
