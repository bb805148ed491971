#!/usr/bin/env bash
# Chrome JSON stacks: the "stackFrames" tree gives the "stack" parameter ("root;...;leaf")
# of the events naming a frame by "sf" (or listing one under "stack"), "esf" gives
# "end_stack"; the frames' categories along a frame-id stack give "stack_categories"
# ("end_stack_categories"; "" for a frame without one, none when no frame has one); each entry of "samples" is a punctual event "sample" on its thread with
# its stack, weight and other keys; unknown frames and frames on no stack are counted.
. "$(dirname "$0")/../lib.sh"

cat >"$TMP/stacks.json" <<'JSON'
{"traceEvents":[
 {"ph":"M","name":"process_name","pid":10,"args":{"name":"renderer"}},
 {"ph":"M","name":"thread_name","pid":10,"tid":11,"args":{"name":"main"}},
 {"ph":"X","name":"task","pid":10,"tid":11,"ts":100,"dur":50,"sf":3},
 {"ph":"i","name":"mark","pid":10,"tid":11,"ts":120,"s":"t","stack":["main","run","0x1234"]},
 {"ph":"P","name":"tick","pid":10,"tid":11,"ts":130,"sf":2},
 {"ph":"i","name":"plain","pid":10,"tid":11,"ts":140,"s":"t","sf":5}
],
"stackFrames":{
 "1":{"name":"main","category":"app"},
 "2":{"name":"run","category":"app","parent":"1"},
 "3":{"name":"work","category":"lib","parent":2},
 "4":{"name":"idle","category":"app","parent":"1"},
 "5":{"name":"nocat","parent":"2"},
 "9":{"name":"orphan","category":"app","parent":"77"}
},
"samples":[
 {"cpu":0,"tid":11,"ts":105,"name":"cycles","sf":3,"weight":7},
 {"cpu":1,"tid":11,"ts":106.5,"name":"cycles","sf":2,"weight":2},
 {"cpu":0,"pid":20,"tid":21,"ts":110,"name":"cycles","sf":1,"weight":1},
 {"cpu":0,"ts":111,"name":"cycles","sf":9,"weight":1}
]}
JSON
check_rc "import samples and stackFrames" 0 "$TRAZA" import "$TMP/stacks.json" --name st
check_contains "8 events" "$OUT" "imported 'st' (chrome): 8 events"
check_contains "a stack naming an unknown frame is counted" "$OUT" "skipped 1 stacks naming an unknown frame (sf, stack)"
check_contains "a frame on no stack is counted" "$OUT" "skipped 1 stack frames on no stack"
Q=$("$TRAZA" query st --csv --limit 0 | cut -d, -f2-4,6,11-)
check_eq "events with their stacks" "ts,end_ts,type,producer,params
100000,150000,task,renderer (10)/main (11),stack=main;run;work;stack_categories=app;app;lib
105000,,sample,renderer (10)/main (11),stack=main;run;work;stack_categories=app;app;lib;cpu=0;name=cycles;weight=7
106500,,sample,renderer (10)/main (11),stack=main;run;stack_categories=app;app;cpu=1;name=cycles;weight=2
110000,,sample,pid 20/tid 21,stack=main;stack_categories=app;cpu=0;name=cycles;weight=1
111000,,sample,global,cpu=0;name=cycles;weight=1
120000,,mark,renderer (10)/main (11),stack=main;run;0x1234
130000,,tick,renderer (10)/main (11),stack=main;run;stack_categories=app;app
140000,,plain,renderer (10)/main (11),stack=main;run;nocat;stack_categories=app;app;" "$Q"
J=$("$TRAZA" info st --json)
check_eq "info: skipped.stacks" 1 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.stacks"])')"
check_eq "info: skipped.stack_frames" 1 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.stack_frames"])')"
before=$("$TRAZA" list --json)
check_rc "--strict fails on the unknown frame" 1 "$TRAZA" import "$TMP/stacks.json" --name st2 --strict
check_contains "--strict names the counts" "$OUT" "skipped 1 stacks naming an unknown frame (sf, stack), 1 stack frames on no stack"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"

printf '{"traceEvents":[],"samples":{"ts":1}}\n' >"$TMP/badsamples.json"
check_rc "samples not an array" 1 "$TRAZA" import "$TMP/badsamples.json" --name bad
check_contains "samples not an array: the error" "$OUT" "expected \"samples\" to be an array, found an object"
printf '{"traceEvents":[],"samples":[{"tid":1,"ts":"x"}]}\n' >"$TMP/badts.json"
check_rc "a sample without a numeric ts" 1 "$TRAZA" import "$TMP/badts.json" --name bad
check_contains "a sample without a numeric ts: the error" "$OUT" "samples #0: expected 'ts' as a number of microseconds, found a string"

S=$DATA/catapult/tracing-test_data/simple_trace.json
if [ -f "$S" ]; then
  check_rc "simple_trace: strict import (3 frames, all on the stacks of 2 events)" 0 "$TRAZA" import "$S" --name simple --strict
  check_eq "simple_trace: the two stacks and their frames' categories" "Long X type,stack=main;frame7;stack_categories=m1;m2;end_stack=main;frame8;end_stack_categories=m1;m2
SampleC,stack=main;frame8;stack_categories=m1;m2" "$("$TRAZA" query simple --csv --limit 0 | grep 'stack=' | cut -d, -f4,11- | sed 's/cat=[A-Z]*;//')"
else
  skip "simple_trace" "shared data absent"
fi
P=$DATA/catapult/tracing-test_data/perf_sampling_trace_with_trace_events.json.gz
if [ -f "$P" ]; then
  check_rc "perf_sampling_trace: import" 0 "$TRAZA" import "$P" --name perf
  N=$(zcat "$P" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["samples"]))')
  check_eq "perf_sampling_trace: every sample an event" "$N" "$("$TRAZA" query perf --type sample --csv --limit 0 | tail -n +2 | wc -l)"
else
  skip "perf_sampling_trace" "shared data absent"
fi
