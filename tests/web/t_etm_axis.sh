#!/usr/bin/env bash
# An ETM trace (time axis: executed instructions) in a real browser (web/test/etmaxis.mjs):
# the metadata and the timeline's window read in instructions, never in seconds.
# Screenshot: $TRAZA_BUILD/web-test/etm-axis.png.
. "$(dirname "$0")/../lib.sh"
S=$DATA/opencsd/snapshots/TC2
if [ ! -d "$S" ]; then skip "etm axis browser test" "shared data absent"; exit 0; fi
check_rc "import the TC2 snapshot" 0 "$TRAZA" import "$S" --name TC2 -q
need_browser "etm axis browser test"
browser_run etmaxis etmaxis.mjs
