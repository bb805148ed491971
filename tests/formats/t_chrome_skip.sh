#!/usr/bin/env bash
# Complete or loud: what the Chrome importer skips is counted on stderr and in the
# trace's skipped.* parameters; --strict makes any skip a failure that changes
# nothing; a file whose every event would be skipped fails with the counts.
. "$(dirname "$0")/../lib.sh"

printf '{"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":2,"ts":10,"dur":5},{"ph":"c","name":"sync","pid":1,"tid":2,"ts":11},{"ph":"c","name":"sync","pid":1,"tid":2,"ts":12},{"ph":"E","pid":1,"tid":3,"ts":13}],"stackFrames":{"1":{"name":"main"}}}\n' >"$TMP/skip.json"
check_rc "import with skips" 0 "$TRAZA" import "$TMP/skip.json" --name skip
check_contains "the clock syncs are counted on stderr" "$OUT" "skipped 2 clock syncs ('c')"
check_contains "the unmatched E is counted" "$OUT" "skipped 1 'E' events without an open 'B' on their thread"
check_contains "a frame of stackFrames on no stack is counted" "$OUT" "skipped 1 stack frames on no stack"
J=$("$TRAZA" info skip --json)
check_eq "info: skipped.clock_syncs" 2 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.clock_syncs"])')"
check_eq "info: skipped.unmatched_E" 1 "$(printf '%s' "$J" | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"]["skipped.unmatched_E"])')"

before=$("$TRAZA" list --json)
check_rc "--strict fails on a skip" 1 "$TRAZA" import "$TMP/skip.json" --name strict --strict
check_contains "--strict names the counts" "$OUT" "a strict import takes every event: skipped 2 clock syncs ('c'), 1 'E' events"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"

printf '{"traceEvents":[{"ph":"X","name":"work","pid":1,"tid":2,"ts":10,"dur":5}]}\n' >"$TMP/full.json"
check_rc "--strict imports a complete file" 0 "$TRAZA" import "$TMP/full.json" --name full --strict

printf '{"traceEvents":[{"ph":"(","name":"ctx","pid":1,"tid":2,"ts":10},{"ph":")","name":"ctx","pid":1,"tid":2,"ts":12}]}\n' >"$TMP/none.json"
before=$("$TRAZA" list --json)
check_rc "nothing importable fails" 1 "$TRAZA" import "$TMP/none.json" --name none
check_contains "... with the counts" "$OUT" "no event to import: skipped 1 context enters ('('), 1 context leaves (')')"
check_eq "... and the workspace unchanged" "$before" "$("$TRAZA" list --json)"
