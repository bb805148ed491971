#!/usr/bin/env bash
# Traces whose ticks are not seconds in a real browser (web/test/countaxis.mjs): a
# Tarmac trace timed in cycles (and the call stacks found in one) and, with the shared data, the PTM snapshot without
# timestamps (executed instructions) and TC2 (timestamp counter ticks); never seconds.
# Screenshots: $TRAZA_BUILD/web-test/count-axis-cycles.png, etm-axis.png, etm-axis-ticks.png.
. "$(dirname "$0")/../lib.sh"
check_rc "import a Tarmac trace in cycles" 0 "$TRAZA" import "$TRAZA_SRC/fuzz/corpus/tarmac/gem5.tarmac" --name cyc -q
check_rc "import a Tarmac trace of calls" 0 "$TRAZA" import "$TRAZA_SRC/fuzz/corpus/tarmac/calls.tarmac" --name calls -q
S=$DATA/opencsd/snapshots
if [ ! -d "$S/TC2" ] || [ ! -d "$S/tc2-ptm-rstk-t32" ]; then
  skip "the ETM traces' axes" "shared data absent"
elif ! has_feature etm; then
  skip "the ETM traces' axes" "this traza was built without etm"
else
  check_rc "import the TC2 snapshot" 0 "$TRAZA" import "$S/TC2" --name TC2 -q
  check_rc "import the PTM snapshot" 0 "$TRAZA" import "$S/tc2-ptm-rstk-t32" --name ptm -q
  export TRAZA_ETM=1
fi
need_browser "count axis browser test"
browser_run countaxis countaxis.mjs
