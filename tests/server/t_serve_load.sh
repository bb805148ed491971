#!/usr/bin/env bash
# traza serve under load (127.0.0.1 only, bounded): a slow analysis does not hold up
# a view, slow clients neither take the server down nor keep their connections past
# the request deadline, a client address is limited in connections, and SIGTERM
# during a long request stops the server within a few seconds.
. "$(dirname "$0")/../lib.sh"
need_feature serve "serve under load"
probe="python3 $(dirname "$0")/httpprobe.py"

"$TRAZA" gen --name small --events 5000 -q >/dev/null
# a trace on which a regex stats scan runs to a 10 s budget
"$TRAZA" gen --name big --events 4M --types state=4,punctual=2 -q >/dev/null
SLOW="/api/stats?trace=big&re.type=state&budget=10000"


start_server
[ -n "$PORT" ] || fail "serve starts" "$(cat "$TMP/serve.out")"

# (a) a density request sent while a slow analysis runs is answered first
OUT=$($probe order "$PORT" "$SLOW" "/api/density?trace=small&slices=50")
if [ "$(echo "$OUT" | json_get in_flight)" != True ]; then
  skip "a view is answered while an analysis runs" "the analysis ended within 0.5 s: $OUT"
else
  check_eq "a view is answered while an analysis runs" "fast" "$(echo "$OUT" | json_get first)"
  check_eq "the view's answer is 200" 200 "$(echo "$OUT" | json_get status.fast)"
  check_eq "the analysis still answers 200" 200 "$(echo "$OUT" | json_get status.slow)"
fi

# (b) 70 slow clients (one header line every 2 s): all connected, a normal request
# answered, and every slow connection closed by the server's 10 s request deadline
OUT=$($probe slow "$PORT" 70 2 14 "/api/density?trace=small&slices=50")
check_eq "70 slow clients are all connected" 70 "$(echo "$OUT" | json_get open)"
check_eq "a request among 70 slow clients is answered" 200 "$(echo "$OUT" | json_get status)"
check_eq "the request deadline closes every slow client" 70 "$(echo "$OUT" | json_get closed_by_server)"
stop_server INT

# a client address is limited in connections (--max-per-client)
start_server --max-per-client 20
OUT=$($probe refused "$PORT" 25)
check_eq "connections past --max-per-client are closed at once" 5 "$(echo "$OUT" | json_get closed)"
OUT=$($probe order "$PORT" "/api/version" "/api/version")
check_eq "the server answers once those are closed" 200 "$(echo "$OUT" | json_get status.fast)"
stop_server TERM
check_rc "serve: --max-per-client 0 is a usage error" 2 "$TRAZA" serve --max-per-client 0

# (c) SIGTERM during a long request: the request is cancelled, the server exits 0
start_server
(curl -s -o /dev/null "http://127.0.0.1:$PORT$SLOW" &)
sleep 1
stop_server TERM
check_eq "SIGTERM during a long request: exit status 0" 0 "$RC"
if python3 -c "import sys; sys.exit(0 if $SECS <= 5 else 1)"; then
  pass "SIGTERM during a long request: stopped in ${SECS} s"
else
  fail "SIGTERM during a long request: stopped in ${SECS} s (more than 5 s)"
fi
check_contains "serve says it stopped on SIGTERM" "$(cat "$TMP/serve.out")" "stopped (SIGTERM"
