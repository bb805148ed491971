#!/usr/bin/env bash
# The Call stack tab's background build under ThreadSanitizer: traza serve
# (build/tsan/traza) asked for the call profile of a trace far bigger than a
# request's budget (budget=10) until it is complete, the answers meanwhile partial;
# another filter and another trace asked for mid-build; SIGTERM during a build. The
# complete answers have the totals of `traza callstack`, and ThreadSanitizer says
# nothing. `make test` builds build/tsan/traza (make tsan); without it the checks
# skip, visibly.
source "$(dirname "$0")/../lib.sh"
TS=$TRAZA_SRC/build/tsan/traza
if [ ! -x "$TS" ]; then skip "the call-profile worker under ThreadSanitizer" "build/tsan/traza absent: make tsan"; exit 0; fi
need_feature serve "the call-profile worker under ThreadSanitizer"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"

"$TRAZA" gen --name big --events 300k -q >/dev/null
"$TRAZA" gen --name other --events 200k --seed 7 -q >/dev/null
TYPE=$("$TRAZA" callstack big --json --top 1 | json_get profile.0.name)

# poll PATH QUERY: asks until the answer is complete; prints the partial answers
# seen and the profile as "name calls inclusive exclusive" lines, sorted
poll() {
  python3 - "$PORT" "$1" <<'PY'
import json, sys, time, urllib.request
port, query = sys.argv[1], sys.argv[2]
partial = 0
for _ in range(15000):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/callstack?{query}&max=5&top=500&budget=10") as r:
        a = json.load(r)
    if not a["partial"]:
        break
    assert a["building"] is True and 0 <= a["progress"] < 1, a
    partial += 1
    time.sleep(0.02)
else:
    sys.exit("never complete")
print("partial", partial)
for f in sorted(a["profile"], key=lambda f: f["name"]):
    print(f["name"], f["calls"], f["inclusive"], f["exclusive"])
PY
}
# cli TRACE ARGS...: the profile of `traza callstack`, as poll prints it
cli() {
  "$TRAZA" callstack "$@" --json --top 500 | python3 -c '
import json, sys
for f in sorted(json.load(sys.stdin)["profile"], key=lambda f: f["name"]):
    print(f["name"], f["calls"], f["inclusive"], f["exclusive"])'
}

TRAZA=$TS start_server
[ -n "$PORT" ] || fail "serve (ThreadSanitizer) starts" "$(cat "$TMP/serve.out")"
OUT=$(poll "trace=big")
check_eq "repeated requests end with the whole profile: the totals of traza callstack" "$(cli big)" "$(echo "$OUT" | sed 1d)"
# a filter asked for, then another trace, while a build runs
TYPEID=$(curl -s "http://127.0.0.1:$PORT/api/trace?trace=big" | python3 -c '
import json, sys
print(next(t["id"] for t in json.load(sys.stdin)["types"] if t["name"] == sys.argv[1]))' "$TYPE")
curl -s -o /dev/null "http://127.0.0.1:$PORT/api/callstack?trace=other&budget=10"
OUT=$(poll "trace=big&types=$TYPEID")
check_eq "a filter asked for mid-build: its own profile" "$(cli big --type "$TYPE")" "$(echo "$OUT" | sed 1d)"
curl -s -o /dev/null "http://127.0.0.1:$PORT/api/callstack?trace=big&budget=10&types=$TYPEID&re.type=."
OUT=$(poll "trace=other")
check_eq "another trace asked for mid-build: its own profile" "$(cli other)" "$(echo "$OUT" | sed 1d)"
# stopped while building
curl -s -o /dev/null "http://127.0.0.1:$PORT/api/callstack?trace=big&budget=10&re.type=state"
stop_server TERM
check_eq "SIGTERM during a build: exit status 0" 0 "$RC"
if grep -q "ThreadSanitizer" "$TMP/serve.out"; then
  fail "ThreadSanitizer says nothing" "$(grep -A30 -m1 "WARNING: ThreadSanitizer" "$TMP/serve.out" | head -c 3000)"
else
  pass "ThreadSanitizer says nothing"
fi
