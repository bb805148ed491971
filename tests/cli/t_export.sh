#!/usr/bin/env bash
# traza export end to end: Paje re-imports to the same model, pjdump matches
# pj_dump's own output, Chrome JSON is valid trace-event JSON that re-imports.
. tests/lib.sh
check_rc "import the demo Paje trace" 0 "$TRAZA" import examples/demo.paje --name board
info() { "$TRAZA" info "$1" --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["events"], d["producers"], d["event_types"], d["min_ts"], d["max_ts"], json.dumps(d["categories"], sort_keys=True))'; }

check_rc "export paje" 0 "$TRAZA" export board --format paje -o "$TMP/board.paje"
check_rc "re-import paje" 0 "$TRAZA" import "$TMP/board.paje" --name board2
check_eq "paje round trip keeps the model" "$(info board)" "$(info board2)"
check_rc "paje round trip keeps the events" 0 diff <("$TRAZA" query board --limit 0 --csv | cut -d, -f2-) <("$TRAZA" query board2 --limit 0 --csv | cut -d, -f2-)

check_rc "export pjdump" 0 "$TRAZA" export board --format pjdump -o "$TMP/board.pjdump"
if command -v pj_dump >/dev/null; then
  pj_dump -e 1e300 examples/demo.paje | sort > "$TMP/ref.pjdump"
  check_rc "pjdump export equals pj_dump's output" 0 diff "$TMP/ref.pjdump" <(sort "$TMP/board.pjdump")
else
  skip "pjdump export equals pj_dump's output" "pj_dump is not installed"
fi

check_rc "export chrome" 0 "$TRAZA" export board --format chrome -o "$TMP/board.json"
check_rc "chrome export is trace-event JSON" 0 python3 - "$TMP/board.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
assert ev, "no events"
for e in ev:
    assert e["ph"] in "XBEiIbenCsftMOPNDc", e
    assert isinstance(e.get("pid"), int) and "name" in e, e
    if e["ph"] != "M":
        assert isinstance(e["ts"], (int, float)), e
    if e["ph"] == "X":
        assert e["dur"] >= 0, e
PY
check_rc "chrome export re-imports" 0 "$TRAZA" import "$TMP/board.json" --name board3 --json
check_eq "states survive the chrome round trip" "$("$TRAZA" query board --category state --count)" "$("$TRAZA" query board3 --category state --count)"

check_rc "export of a window" 0 "$TRAZA" export board --format csv --from 100ms --to 200ms -o "$TMP/w.csv"
check_eq "window export rows" "$(( $("$TRAZA" query board --from 100ms --to 200ms --count) + 1 ))" "$(wc -l < "$TMP/w.csv")"

check_rc "report of the demo trace" 0 "$TRAZA" report board -o "$TMP/r.html"
check_contains "report durations in readable units" "$(cat "$TMP/r.html")" ">480 ms</text>"
