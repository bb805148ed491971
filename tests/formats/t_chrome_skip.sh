#!/usr/bin/env bash
# Complete or loud: what the Chrome importer skips is counted on stderr and in the
# trace's skipped.* parameters; --strict makes any skip a failure that changes
# nothing; a file whose every event would be skipped fails with the counts.
. "$(dirname "$0")/../lib.sh"

printf '{"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":2,"ts":10,"dur":5},{"ph":"O","name":"snap","pid":1,"tid":2,"ts":11,"id":"0x1"},{"ph":"O","name":"snap","pid":1,"tid":2,"ts":12,"id":"0x1"},{"ph":"E","pid":1,"tid":3,"ts":13}],"stackFrames":{"1":{"name":"main"}}}\n' >"$TMP/skip.json"
check_rc "import with skips" 0 "$TRAZA" import "$TMP/skip.json" --name skip
check_contains "the object snapshots are counted on stderr" "$OUT" "skipped 2 object snapshots ('O')"
check_contains "the unmatched E is counted" "$OUT" "skipped 1 'E' events without an open 'B' on their thread"
check_contains "a frame of stackFrames on no stack is counted" "$OUT" "skipped 1 stack frames on no stack"
J=$("$TRAZA" info skip --json)
check_eq "info: skipped.object_snapshots" 2 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.object_snapshots"])')"
check_eq "info: skipped.unmatched_E" 1 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.unmatched_E"])')"

before=$("$TRAZA" list --json)
check_rc "--strict fails on a skip" 1 "$TRAZA" import "$TMP/skip.json" --name strict --strict
check_contains "--strict names the counts" "$OUT" "a strict import takes every event: skipped 2 object snapshots ('O'), 1 'E' events"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"

printf '{"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":2,"ts":10,"dur":5}]}\n' >"$TMP/full.json"
check_rc "--strict imports a complete file" 0 "$TRAZA" import "$TMP/full.json" --name full --strict

C=$DATA/catapult/tracing-test_data/chromeos_system_trace.json
if [ -f "$C" ]; then
  before=$("$TRAZA" list --json)
  check_rc "chromeos_system_trace: nothing importable fails" 1 "$TRAZA" import "$C" --name cros
  check_contains "chromeos_system_trace: with the counts" "$OUT" "no event to import: skipped 12 object snapshots ('O')"
  check_eq "chromeos_system_trace: workspace unchanged" "$before" "$("$TRAZA" list --json)"
else
  skip "chromeos_system_trace" "shared data absent"
fi
