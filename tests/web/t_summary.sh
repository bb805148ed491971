#!/usr/bin/env bash
# The timeline's summary mode in a real browser (web/test/summary.mjs): a producer with
# an event in every pixel column, drowned among another's events, is drawn in every
# column; a long state over its whole extent. Screenshot: $TRAZA_BUILD/web-test/summary-*.png.
. "$(dirname "$0")/../lib.sh"

python3 - "$TMP/sum.csv" <<'PY'
import sys
with open(sys.argv[1], 'w') as f:
    f.write('ts,end,type,producer,end_producer,value,category\n')
    for t in range(120000):
        f.write(f'{t},,busy,bulk,,,punctual\n')
        if t % 25 == 12:
            f.write(f'{t},,tick,n0,,,punctual\n')
    f.write('30000,41999,run,s0,,,state\n')
PY
check_rc "import the summary trace" 0 "$TRAZA" import "$TMP/sum.csv" --name sum -q

need_browser "summary browser test"
browser_run summary summary.mjs
