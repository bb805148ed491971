#!/usr/bin/env bash
# A tool launched from the web UI on the selection reads the events the table shows:
# the table's regex column filters reach the tool (web/test/toolfilter.mjs in Debian's
# chromium headless); the sets it saved are then checked against the CLI's
# `traza query --regex --count`. Screenshots: $TRAZA_BUILD/web-test/viewer-toolfilter-*.png.
. "$(dirname "$0")/../lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
need_browser "tools launched on the table's column filters"

"$TRAZA" gen --name gen --events 20000 --params 2 -q >/dev/null
real=()
lttng=$DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ -d "$lttng" ] && "$TRAZA" import "$lttng" --name lttng -q >/dev/null 2>&1; then
  real=(lttng '^sched_sw')
else
  skip "the column filters on the LTTng trace" "$lttng is absent or does not import"
fi
rm -f "${TRAZA_BUILD:-$root/build}"/web-test/viewer-toolfilter-*.png
browser_run toolfilter toolfilter.mjs gen "${real[@]}"

size() { "$TRAZA" results "$1" --json | python3 -c "import json,sys; print([r['size'] for r in json.load(sys.stdin) if r['name']=='$2'][0])"; }
check_eq "the UI's set is the CLI's query under the same regexes" \
  "$("$TRAZA" query gen --regex 'type~^state' --regex 'p0!~^1' --count)" "$(size gen ui-regex)"
check_contains "the set records the regexes it was made with" "$("$TRAZA" results gen show ui-regex --json)" 'regex=type~^state'
if [ ${#real[@]} -gt 0 ]; then
  check_eq "on the LTTng trace too" "$("$TRAZA" query lttng --regex "type~${real[1]}" --count)" "$(size lttng ui-regex-real)"
fi
