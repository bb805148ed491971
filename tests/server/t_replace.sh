#!/usr/bin/env bash
# A trace replaced in the store while `traza serve` runs (what `traza record --target
# --refresh` does while it records): every answer about the name is the new version's
# — its information, density, statistics and timeline, though the server had the old
# one open with its time index built — under a new id, the old id gone; the mark
# rt.recording=1 comes and goes with the versions.
. "$(dirname "$0")/../lib.sh"
need_feature serve "server: a replaced trace"
for n in 200 400 600; do "$TRAZA" gen --events $n --seed 3 -o "$TMP/v$n.csv" --format csv -q; done
check_rc "import version 1 (200 events), marked as being recorded" 0 \
  "$TRAZA" import "$TMP/v200.csv" --name live --meta rt.recording=1 -q

start_server
[ -n "$PORT" ] || { fail "serve starts" "$(cat "$TMP/serve.out")"; exit 0; }
get() { python3 -c 'import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())' \
  "http://127.0.0.1:$PORT/api/$1" 2>/dev/null; }
code() { python3 - "http://127.0.0.1:$PORT/api/$1" <<'PY'
import sys, urllib.request, urllib.error
try:
    urllib.request.urlopen(sys.argv[1]); print(200)
except urllib.error.HTTPError as e:
    print(e.code)
PY
}
# "events id marker density-total stats-total timeline-mode" of the trace named live
seen() {
  local t d s tl
  t=$(get "trace?trace=live") d=$(get "density?trace=live&slices=50") s=$(get "stats?trace=live")
  tl=$(get "timeline?trace=live&width=400")
  python3 - "$t" "$d" "$s" "$tl" <<'PY'
import json, sys
t, d, s, tl = (json.loads(x) for x in sys.argv[1:])
print(t["info"]["events"], t["info"]["id"], t["info"]["params"].get("rt.recording", "-"), d["total"], s["total"],
      "timeline" if tl.get("mode") else "no-timeline")
PY
}
v1=$(seen)
check_eq "version 1 served: 200 events everywhere, marked" "200 1 200 200 timeline" \
  "$(echo "$v1" | awk '{print $1, $3, $4, $5, $6}')"
id1=$(echo "$v1" | awk '{print $2}')

check_rc "import version 2 (400 events) in its place" 0 \
  "$TRAZA" import "$TMP/v400.csv" --name live --replace --meta rt.recording=1 -q
v2=$(seen)
check_eq "version 2 served: 400 events everywhere, still marked" "400 1 400 400 timeline" \
  "$(echo "$v2" | awk '{print $1, $3, $4, $5, $6}')"
id2=$(echo "$v2" | awk '{print $2}')
check_eq "  under a new id, above the old one" yes "$([ "$id2" -gt "$id1" ] && echo yes)"
check_eq "  the old id is gone (404)" 404 "$(code "trace?trace=$id1")"

check_rc "the last version (600 events), without the mark" 0 "$TRAZA" import "$TMP/v600.csv" --name live --replace -q
check_eq "version 3 served: 600 events, no mark" "600 - 600 600 timeline" \
  "$(seen | awk '{print $1, $3, $4, $5, $6}')"
check_eq "one trace named live in the list" 1 \
  "$(get traces | python3 -c 'import json,sys; print(sum(t["name"] == "live" for t in json.load(sys.stdin)["traces"]))')"
stop_server TERM
check_eq "serve stops cleanly" 0 "$RC"
