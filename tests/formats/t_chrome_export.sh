#!/usr/bin/env bash
# Chrome JSON export of the LTTng kernel trace's processed trace: timestamps from the
# trace start keep their nanoseconds as JSON doubles (nested slices stay nested, as a
# viewer reads them), and a re-import gives the same producers (the tree through
# process/thread metadata with parent_tid), events and states.
. "$(dirname "$0")/../lib.sh"
need_feature ctf "Chrome export of an LTTng trace"

K=$TRAZA_TEST_DATA/babeltrace-ctf/lttng-tracefile-rotation/kernel
if [ ! -d "$K" ]; then skip "chrome export" "shared data absent"; exit 0; fi

"$TRAZA" import "$K" --name k -q >/dev/null
check_rc "export chrome" 0 "$TRAZA" export k.processed --format chrome -o "$TMP/rel.json"
check_rc "export chrome --absolute" 0 "$TRAZA" export k.processed --format chrome --absolute -o "$TMP/abs.json"

# Slices of one thread that overlap without nesting, read as a viewer does (doubles,
# end = ts + dur), with half a nanosecond of slack.
overlaps() {
  python3 - "$1" <<'PY'
import json, sys
from collections import defaultdict
by = defaultdict(list)
for e in json.load(open(sys.argv[1]))["traceEvents"]:
    if e.get("ph") == "X":
        by[(e.get("pid"), e.get("tid"))].append((e["ts"], e["ts"] + e["dur"]))
bad = 0
for v in by.values():
    v.sort(key=lambda x: (x[0], -x[1]))
    stack = []
    for s, t in v:
        while stack and stack[-1] <= s + 0.0005:
            stack.pop()
        if stack and t > stack[-1] + 0.0005:
            bad += 1
        stack.append(t)
print(bad)
PY
}
check_eq "slices nest (timestamps from the trace start)" 0 "$(overlaps "$TMP/rel.json")"
check_eq "the first event is at 0" 0 "$(python3 -c 'import json,sys; print(min(e["ts"] for e in json.load(open(sys.argv[1]))["traceEvents"] if "ts" in e))' "$TMP/rel.json")"
check_eq "--absolute writes epoch microseconds" 1571261795523067.5 "$(python3 -c 'import json,sys; print(min(e["ts"] for e in json.load(open(sys.argv[1]))["traceEvents"] if "ts" in e))' "$TMP/abs.json")"

J=$("$TRAZA" info k.processed --json)
check_rc "re-import" 0 "$TRAZA" import "$TMP/rel.json" --name again --json
check_eq "same producers" "$(printf '%s' "$J" | json_get producers)" "$(printf '%s' "$OUT" | json_get producers)"
check_eq "same events" "$(printf '%s' "$J" | json_get events)" "$(printf '%s' "$OUT" | json_get events)"
check_eq "same categories" "$(printf '%s' "$J" | json_get categories)" "$(printf '%s' "$OUT" | json_get categories)"
# Every state comes back at the same time from the start, to the nanosecond, on a
# producer at the same depth of the tree.
states() { "$TRAZA" query "$1" --category state --csv --limit 0 | python3 -c '
import csv, hashlib, sys
rows = [(int(r["ts"]), int(r["end_ts"]), r["type"], r["producer"].count("/")) for r in csv.DictReader(sys.stdin)]
m = min(r[0] for r in rows)
print(len(rows), max(r[3] for r in rows), hashlib.md5(repr(sorted((a - m, b - m, t, d) for a, b, t, d in rows)).encode()).hexdigest())'; }
check_eq "states to the nanosecond, at the same depth" "$(states k.processed)" "$(states again)"
