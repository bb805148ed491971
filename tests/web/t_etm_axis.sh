#!/usr/bin/env bash
# ETM traces whose ticks are not seconds in a real browser (web/test/etmaxis.mjs): the
# PTM snapshot without timestamps reads in executed instructions, TC2 (timed by its
# timestamps) in timestamp counter ticks; never in seconds.
# Screenshots: $TRAZA_BUILD/web-test/etm-axis.png, etm-axis-ticks.png.
. "$(dirname "$0")/../lib.sh"
S=$DATA/opencsd/snapshots
if [ ! -d "$S/TC2" ] || [ ! -d "$S/tc2-ptm-rstk-t32" ]; then skip "etm axis browser test" "shared data absent"; exit 0; fi
check_rc "import the TC2 snapshot" 0 "$TRAZA" import "$S/TC2" --name TC2 -q
check_rc "import the PTM snapshot" 0 "$TRAZA" import "$S/tc2-ptm-rstk-t32" --name ptm -q
need_browser "etm axis browser test"
need_feature etm "etm axis browser test"
browser_run etmaxis etmaxis.mjs
