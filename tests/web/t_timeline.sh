#!/usr/bin/env bash
# The web UI's timeline in a real browser (web/test/timeline.mjs): the ruler, every
# producer reachable by scrolling, depth lanes, zoom and pan by key, go to a time,
# the hover/click events. Screenshots: $TRAZA_BUILD/web-test/timeline-*.png.
. "$(dirname "$0")/../lib.sh"

# states nested 7 deep on cpu0 (one lane each, drawn in 6), one on cpu1 with two
# markers, a link cpu0 -> cpu1, two variables and a state on cpu2
cat >"$TMP/nest.csv" <<'CSV'
ts,end,type,producer,end_producer,value,category
0,1000,outer,cpu0,,,state
100,900,mid,cpu0,,,state
200,500,inner,cpu0,,,state
250,400,deeper,cpu0,,,state
260,390,d5,cpu0,,,state
270,380,d6,cpu0,,,state
280,370,d7,cpu0,,,state
600,800,inner,cpu0,,,state
50,950,outer,cpu1,,,state
300,,tick,cpu1,,,punctual
310,,tick,cpu1,,,punctual
320,450,msg,cpu0,cpu1,,link
0,,load,cpu2,,3,variable
200,,load,cpu2,,7,variable
500,,load,cpu2,,1,variable
700,,load,cpu2,,5,variable
0,,mem,cpu2,,1000,variable
400,900,mem,cpu2,,4000,variable
100,600,run,cpu2,,,state
CSV
check_rc "import the nested trace" 0 "$TRAZA" import "$TMP/nest.csv" --name nest -q
check_rc "generate a trace of 400 producers" 0 "$TRAZA" gen --name many --producers 400 --events 20000 -q
lttng=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lttng" ] && "$TRAZA" import "$lttng" --name lttng -q >/dev/null 2>&1; then
  export TRAZA_LTTNG=1
else
  skip "the LTTng kernel trace's producers in the timeline" "$lttng is absent or does not import"
fi

need_browser "timeline browser test"
browser_run timeline timeline.mjs
