#!/usr/bin/env bash
# Chrome's object events: an 'O' snapshot's numbers (every JSON number reached through
# objects, members joined by '.') are variables NAME[ID].MEMBER of the object's process,
# each sample holding until the next; other values (strings, even "480", booleans,
# null, arrays) and references to other objects ({"id_ref": ...}) are counted as skipped; 'N' and 'D' are punctual events
# "NAME created" / "NAME deleted" with the object's id. On catapult's
# chromeos_system_trace.json (only 'M' metadata and 'O' snapshots of system stats),
# every number of every snapshot arrives, each with its value.
. "$(dirname "$0")/../lib.sh"

cat >"$TMP/obj.json" <<'JSON'
{"traceEvents":[
 {"ph":"M","name":"process_name","pid":7,"args":{"name":"gpu"}},
 {"ph":"N","name":"Layer","pid":7,"tid":8,"ts":10,"id":"0x2a"},
 {"ph":"O","name":"Layer","pid":7,"tid":8,"ts":11,"id":"0x2a","args":{"snapshot":{"w":640,"h":"480","mem":{"rss":1000,"kind":"tile"},"visible":true,"quads":[1,2],"frame":{"id_ref":"0x10"}}}},
 {"ph":"O","name":"Layer","pid":7,"tid":9,"ts":15,"id":"0x2a","args":{"snapshot":{"w":800,"h":"600","mem":{"rss":3000,"kind":"tile"},"visible":false,"quads":[],"frame":{"id_ref":"0x10"}}}},
 {"ph":"O","name":"Layer","pid":7,"tid":8,"ts":16,"id":"0x2a"},
 {"ph":"D","name":"Layer","pid":7,"tid":8,"ts":20,"id":"0x2a"}
]}
JSON
check_rc "import objects" 0 "$TRAZA" import "$TMP/obj.json" --name obj
check_contains "the values that are not numbers are counted" "$OUT" "skipped 8 object snapshot values that are not numbers"
check_contains "the references to other objects are counted" "$OUT" "skipped 2 references to other objects in object snapshots (id_ref)"
check_contains "a snapshot without args.snapshot is counted" "$OUT" "skipped 1 object snapshots without an args.snapshot object"
vals() { "$TRAZA" query obj --type "$1" --json | python3 -c 'import json,sys; print(" ".join("%g@%s-%s" % (e["value"], e["ts"], e["end_ts"]) for e in json.load(sys.stdin)))'; }
check_eq "Layer[0x2a].w: two samples, each until the next, the last until the end" "640@11000-15000 800@15000-20000" "$(vals 'Layer[0x2a].w')"
check_eq "a nested member's path" "1000@11000-15000 3000@15000-20000" "$(vals 'Layer[0x2a].mem.rss')"
check_eq "no variable for the strings, the booleans, the arrays or the reference" "0" "$("$TRAZA" query obj --regex 'type~\.(h|kind|visible|quads|frame)' --count)"
check_eq "the variables belong to the process (both threads' snapshots in one series)" "gpu (7)" \
  "$("$TRAZA" query obj --type 'Layer[0x2a].w' --json | python3 -c 'import json,sys; print(" ".join(sorted({e["producer"] for e in json.load(sys.stdin)})))')"
life=$("$TRAZA" query obj --regex 'type~created|deleted' --json | python3 -c 'import json,sys; print(" ".join("%s@%s:%s" % (e["type"], e["ts"], e["params"]["id"]) for e in json.load(sys.stdin)))')
check_eq "N and D: created and deleted with the id" "Layer created@10000:0x2a Layer deleted@20000:0x2a" "$life"
check_rc "--strict refuses the skipped values" 1 "$TRAZA" import "$TMP/obj.json" --name objstrict --strict

C=$DATA/catapult/tracing-test_data/chromeos_system_trace.json
if [ -f "$C" ]; then
  check_rc "chromeos_system_trace imports, strict" 0 "$TRAZA" import "$C" --name cros --strict
  want=$(python3 - "$C" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def leaves(o):
    for v in o.values():
        if isinstance(v, dict):
            yield from leaves(v)
        elif isinstance(v, (int, float)) and not isinstance(v, bool):
            yield v
snaps = [e for e in d["traceEvents"] if e["ph"] == "O"]
print(sum(1 for e in snaps for _ in leaves(e["args"]["snapshot"])), snaps[0]["args"]["snapshot"]["meminfo"]["free"], snaps[-1]["args"]["snapshot"]["diskinfo"]["writes"])
PY
)
  read -r n free writes <<<"$want"
  check_eq "chromeos_system_trace: every number of every snapshot ($n)" "$n" "$("$TRAZA" query cros --count)"
  q() { "$TRAZA" query cros --type "base::TraceEventSystemStatsMonitor::SystemStats[0x1].$1" --json | python3 -c "import json,sys; e=json.load(sys.stdin); print('%g' % e[$2]['value'])"; }
  check_eq "chromeos_system_trace: the first meminfo.free" "$(printf '%g' "$free")" "$(q meminfo.free 0)"
  check_eq "chromeos_system_trace: the last diskinfo.writes" "$(printf '%g' "$writes")" "$(q diskinfo.writes -1)"
else
  skip "chromeos_system_trace" "shared data absent ($C)"
fi
