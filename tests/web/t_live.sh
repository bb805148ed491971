#!/usr/bin/env bash
# A trace being recorded in a real browser (web/test/live.mjs): versions of 'live'
# imported in its place (as `traza record --target --refresh` does), the first ones
# marked rt.recording=1. The page shows "recording… (N events)", takes each new version,
# follows the end when its view is there, keeps a view panned away, and stops reading
# at the unmarked last version. Screenshot: $TRAZA_BUILD/web-test/live-following.png.
. "$(dirname "$0")/../lib.sh"
for n in 200 400 600 800 1000; do "$TRAZA" gen --events $n --seed 3 -o "$TMP/v$n.csv" --format csv -q; done
check_rc "import the first version, marked as being recorded" 0 \
  "$TRAZA" import "$TMP/v200.csv" --name live --meta rt.recording=1 -q
need_browser "live trace browser test"
browser_run live live.mjs "$TRAZA" "$TMP/v400.csv" "$TMP/v600.csv" "$TMP/v800.csv" "$TMP/v1000.csv"
