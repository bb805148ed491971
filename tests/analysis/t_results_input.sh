#!/usr/bin/env bash
# Every result kind is an input: a group, or one node of it (GROUP/NODE), wherever an
# event set or a producer set is (--set of query/stats/export, series, aggregate
# --producers, the server's result=).
. "$(dirname "$0")/../lib.sh"
BUILD=${TRAZA_BUILD:-$(dirname "$TRAZA")}
MK=$BUILD/helpers/analysis/helper_mkgen
if [ ! -x "$MK" ]; then
  fail "results input" "missing $MK: run make tests"
  exit 0
fi
"$MK" "$TRAZA_WORKSPACE" flush flush 60 || { fail "generate flush trace"; exit 0; }

check_rc "seqsearch" 0 "$TRAZA" seqsearch flush --pattern 'flush,read' --max-gap 5ms
check_contains "8 instances" "$OUT" "8 instances saved as group 'seq:flush,read', 5799 exceptions"
check_rc "a group as --set of query" 0 "$TRAZA" query flush --set 'seq:flush,read' --count
check_eq "its 16 event leaves" 16 "$OUT"
check_rc "the exceptions group as --set" 0 "$TRAZA" query flush --set 'seq:flush,read:exceptions' --count
check_eq "5799 exceptions" 5799 "$OUT"
check_rc "one instance: GROUP/NODE by the instance's name" 0 "$TRAZA" query flush --set 'seq:flush,read/3' --json
check_eq "instance 3's events" "[4989, 4990]" "$(echo "$OUT" | python3 -c 'import json,sys; print([e["id"] for e in json.load(sys.stdin)])')"
check_rc "a group in stats" 0 "$TRAZA" stats flush --set 'seq:flush,read' --json
check_eq "stats count the group's events" 16 "$(echo "$OUT" | json_get total)"
check_rc "a group in export" 0 "$TRAZA" export flush --set 'seq:flush,read/0' --format csv -o "$TMP/i0.csv"
check_eq "export: a header and instance 0's 2 events" 3 "$(wc -l < "$TMP/i0.csv")"
check_rc "an unknown node" 1 "$TRAZA" query flush --set 'seq:flush,read/99' --count
check_contains "says which" "$OUT" "group 'seq:flush,read' has no node named or numbered '99'"
check_rc "a producer set saved" 0 "$TRAZA" filter flush --producers --type flush --name disks
check_rc "a producer set as --set is refused" 2 "$TRAZA" query flush --set disks --count
check_contains "precisely" "$OUT" "result 'disks' is a producer_set: only an event set or a group restricts events"
check_rc "nodes of a set are refused" 2 "$TRAZA" query flush --set disks/1 --count
check_contains "only groups have nodes" "$OUT" "result 'disks' is a producer_set: only a group has nodes to name with 'disks/NODE'"

# a group as a series and as a producer set
check_rc "a group as a correlation series" 0 "$TRAZA" correlate flush --series 'seq:flush,read' --with flush --slices 6
check_contains "its 16 points" "$OUT" "seq:flush,read (16 events) vs flush (12 events)"
check_rc "a group as aggregate's producer set" 0 "$TRAZA" aggregate flush --slices 4 --p 0.5 --producers 'seq:flush,read' --list-p
check_contains "the 2 producers of its events" "$OUT" "(4 slices, model occurrences, 2 series)"
check_contains "saved under a name that tells the group" "$("$TRAZA" results flush)" "aggregate:occurrences:4:seq:flush,read"

# provenance: tool, options, input results, traza version and time, in results show,
# results --json and the server's listing
VERSION=$(sed -n 's/^#define TRAZA_VERSION_STRING "\(.*\)"/\1/p' "${TRAZA_SRC:-.}/include/traza/version.h")
check_rc "an event set made from a group" 0 "$TRAZA" filter flush --set 'seq:flush,read' --type read --name reads
check_rc "results show" 0 "$TRAZA" results flush show reads
check_contains "the tool, its version and options" "$OUT" "made by filter of traza $VERSION with --set seq:flush,read --type read --name reads flush, "
check_contains "the input result" "$OUT" "inputs: seq:flush,read"
check_rc "a correlation of two results" 0 "$TRAZA" correlate flush --series reads --with 'seq:flush,read' --slices 6
J=$("$TRAZA" results flush --json)
check_eq "results --json: the correlation's inputs" '["reads", "seq:flush,read"]' \
  "$(echo "$J" | python3 -c 'import json,sys; print(json.dumps([r for r in json.load(sys.stdin) if r["name"]=="correlation:reads~seq:flush,read"][0]["inputs"]))')"
check_eq "results --json: the version" "$VERSION" \
  "$(echo "$J" | python3 -c 'import json,sys; print([r for r in json.load(sys.stdin) if r["name"]=="reads"][0]["version"])')"
check_eq "a result from no saved result has no inputs" "[]" \
  "$(echo "$J" | python3 -c 'import json,sys; print(json.dumps([r for r in json.load(sys.stdin) if r["name"]=="seq:flush,read"][0]["inputs"]))')"

# the server's views take the same references (result=)
start_server
if [ -n "$PORT" ]; then
  get() { curl -s "http://127.0.0.1:$PORT$1"; }
  check_eq "result=GROUP in /api/events" 16 "$(get "/api/events?trace=flush&result=seq:flush,read&limit=1" | json_get total)"
  check_eq "result=GROUP/NODE in /api/events" 2 "$(get "/api/events?trace=flush&result=seq:flush,read/3&limit=1" | json_get total)"
  check_eq "the server lists the provenance" "[\"seq:flush,read\"] $VERSION" \
    "$(get "/api/trace?trace=flush" | python3 -c 'import json,sys; r=[r for r in json.load(sys.stdin)["results"] if r["name"]=="reads"][0]; print(json.dumps(r["inputs"]), r["version"])')"
  stop_server TERM
else
  fail "serve starts" "$(cat "$TMP/serve.out")"
fi
