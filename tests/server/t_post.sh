#!/usr/bin/env bash
# traza serve: the endpoints that change the workspace (POST /api/run, /api/job/cancel,
# /api/results/delete) only answer the served page (its token, its origin, this
# server's Host); a tool run is a job whose saved result the CLI lists.
. "$(dirname "$0")/../lib.sh"
need_feature serve "server POST endpoints"

"$TRAZA" gen --name gen --events 20000 --params 2 -q >/dev/null
start_server
[ -n "$PORT" ] || { fail "serve starts" "$(cat "$TMP/serve.out")"; exit 0; }

# req METHOD TARGET [HEADER:VALUE]... [body=N]: prints "STATUS BODY" (Host defaults to
# this server's address).
req() {
  python3 - "$PORT" "$@" <<'PY'
import http.client, sys
port, method, target = sys.argv[1], sys.argv[2], sys.argv[3]
headers, body = {"Host": "127.0.0.1:" + port}, None
for a in sys.argv[4:]:
    if a.startswith("body="):
        body = b"x" * int(a[5:])
    else:
        k, v = a.split(":", 1)
        headers[k] = v
c = http.client.HTTPConnection("127.0.0.1", int(port), timeout=30)
c.putrequest(method, target, skip_host=True, skip_accept_encoding=True)
for k, v in headers.items():
    c.putheader(k, v)
if body is not None:
    c.putheader("Content-Length", str(len(body)))
c.endheaders(body)
r = c.getresponse()
print(r.status, r.read().decode())
PY
}
status() { printf '%s' "$1" | cut -d' ' -f1; }
body() { printf '%s' "$1" | cut -d' ' -f2-; }

page=$(req GET /)
tok=$(printf '%s' "$page" | sed -n 's/.*<meta name="traza-token" content="\([0-9a-f]*\)">.*/\1/p')
check_eq "the page carries a 64-digit token" 64 "${#tok}"
page2=$(req GET /index.html)
check_contains "index.html carries the same token" "$page2" "content=\"$tok\""

run="/api/run?tool=filter&trace=gen&type=state0&name=s0"
r=$(req POST "$run")
check_eq "POST without the token: 403" 403 "$(status "$r")"
check_contains "403 says why (JSON)" "$(body "$r")" '"error":"forbidden: a POST needs the X-Traza-Token header'
# the token with its last digit changed (a 0 left as 0 would be the right token)
last=${tok: -1}; [ "$last" = 0 ] && other=1 || other=0
r=$(req POST "$run" "X-Traza-Token:${tok%?}$other")
check_eq "POST with a wrong token: 403" 403 "$(status "$r")"
r=$(req POST "$run" "X-Traza-Token:$tok" "Origin:http://evil.example")
check_eq "POST from a foreign Origin: 403" 403 "$(status "$r")"
check_contains "foreign origin says why" "$(body "$r")" "another origin"
r=$(req POST "$run" "X-Traza-Token:$tok" "Host:evil.example:$PORT" "Origin:http://evil.example:$PORT")
check_eq "POST naming another host (DNS rebinding): 403" 403 "$(status "$r")"
r=$(req GET "$run")
check_eq "GET on /api/run: 405" 405 "$(status "$r")"
check_contains "405 says POST only" "$(body "$r")" "POST only"
r=$(req GET "/api/results/delete?trace=gen&name=x")
check_eq "GET on /api/results/delete: 405" 405 "$(status "$r")"
r=$(req POST "/api/events?trace=gen" "X-Traza-Token:$tok")
check_eq "POST on a read endpoint: 405" 405 "$(status "$r")"
r=$(req POST "$run" "X-Traza-Token:$tok" body=100)
check_eq "a POST body is refused: 413" 413 "$(status "$r")"
check_eq "nothing was saved by the refused requests" "[]" "$("$TRAZA" results gen --json)"

r=$(req POST "/api/run?tool=anomaly&trace=gen&type=state0&svg=/tmp/x.svg" "X-Traza-Token:$tok")
check_eq "an option naming a file: 400" 400 "$(status "$r")"
check_contains "... says so" "$(body "$r")" "names a file"
r=$(req POST "/api/run?tool=aggregate&trace=gen&micro-out=/tmp/traza-micro-out-by-http" "X-Traza-Token:$tok")
check_eq "aggregate's micro-out names a file: 400" 400 "$(status "$r")"
check_eq "... and nothing is written" no "$([ -e /tmp/traza-micro-out-by-http ] && echo yes || echo no)"
r=$(req POST "/api/run?tool=import-csv&trace=gen" "X-Traza-Token:$tok")
check_eq "an importer does not run over HTTP: 400" 400 "$(status "$r")"
r=$(req POST "/api/run?tool=anomaly&trace=gen&bogus=1" "X-Traza-Token:$tok")
check_eq "an unknown option: 400" 400 "$(status "$r")"
r=$(req POST "/api/run?tool=anomaly&trace=nope" "X-Traza-Token:$tok")
check_eq "an unknown trace: 404" 404 "$(status "$r")"

tools=$(body "$(req GET /api/tools)")
check_eq "/api/tools: anomaly's rule takes mad, sigma or ci99" '["mad", "sigma", "ci99"]' \
  "$(printf '%s' "$tools" | python3 -c 'import json,sys; t=[x for x in json.load(sys.stdin)["tools"] if x["name"]=="anomaly"][0]; print(json.dumps([o for o in t["options"] if o["name"]=="rule"][0]["allowed"]))')"
check_eq "/api/tools: no file option, no importer" "False False" \
  "$(printf '%s' "$tools" | python3 -c 'import json,sys; d=json.load(sys.stdin)["tools"]; print(any(o["name"]=="svg" for t in d for o in t["options"]), any(t["name"].startswith("import-") for t in d))')"

# wait_job ID: polls /api/job until the job ends -> $JOB (its JSON)
wait_job() {
  for _ in $(seq 1 100); do
    JOB=$(body "$(req GET "/api/job?id=$1")")
    case "$JOB" in *'"state":"queued"'*|*'"state":"running"'*) sleep 0.1 ;; *) return ;; esac
  done
}
r=$(req POST "$run" "X-Traza-Token:$tok" "Origin:http://127.0.0.1:$PORT")
check_eq "POST with the token and this origin: 200" 200 "$(status "$r")"
id=$(body "$r" | json_get job)
wait_job "$id"
check_eq "the job ends done with its result" "done 1.0 s0" "$(printf '%s' "$JOB" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["progress"], j["result"])')"
check_contains "traza results lists the saved set" "$("$TRAZA" results gen)" "s0"
size=$("$TRAZA" results gen --json | python3 -c 'import json,sys; print([r["size"] for r in json.load(sys.stdin) if r["name"]=="s0"][0])')
want=$("$TRAZA" query gen --type state0 --count 2>/dev/null || "$TRAZA" stats gen --json | python3 -c 'import json,sys; print([t["count"] for t in json.load(sys.stdin)["types"] if t["name"]=="state0"][0])')
check_eq "the set holds the state0 events" "$want" "$size"
check_eq "result=s0 filters the events to the set" "$size" "$(body "$(req GET "/api/events?trace=gen&result=s0&limit=1")" | json_get total)"
check_eq "result= of no result: 404" 404 "$(status "$(req GET "/api/events?trace=gen&result=nope")")"

# a producer set filters to its producers' events (those active early on)
r=$(req POST "/api/run?tool=producer-activity&trace=gen&name=p0&from=80&to=3000" "X-Traza-Token:$tok")
wait_job "$(body "$r" | json_get job)"
check_eq "producer-activity saves p0" "done p0" "$(printf '%s' "$JOB" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["result"])')"
pargs=$("$TRAZA" results gen show p0 --json | python3 -c 'import json,sys; print(" ".join("--producer " + m for m in json.load(sys.stdin)["members"]))')
# shellcheck disable=SC2086
want=$("$TRAZA" query gen $pargs --count)
[ "$want" -gt 0 ] && [ "$want" -lt 20000 ] || fail "the idle producers have some events but not all" "$want"
check_eq "result=p0 keeps the events of its producers" "$want" "$(body "$(req GET "/api/events?trace=gen&result=p0&limit=1")" | json_get total)"
n0=$(body "$(req GET "/api/trace?trace=gen")" | python3 -c 'import json,sys; print([p["id"] for p in json.load(sys.stdin)["producers"] if p["name"]=="n0"][0])')
check_eq "result=p0 within producers= keeps the producers in both" "$("$TRAZA" query gen --producer g0_0/n0 --count)" \
  "$(body "$(req GET "/api/events?trace=gen&result=p0&producers=$n0&limit=1")" | json_get total)"
check_eq "result=p0 within producers= of none of its producers: no event" 0 \
  "$(body "$(req GET "/api/events?trace=gen&result=p0&producers=0&limit=1")" | json_get total)"

# a tool's error is the job's
r=$(req POST "/api/run?tool=anomaly&trace=gen&type=nosuchtype" "X-Traza-Token:$tok")
wait_job "$(body "$r" | json_get job)"
check_eq "a failing run ends failed" "failed" "$(printf '%s' "$JOB" | json_get state)"
check_contains "... with the tool's error" "$JOB" "nosuchtype"

r=$(req POST "/api/job/cancel?id=$id" "X-Traza-Token:$tok")
check_eq "cancel of a finished job: 200, stays done" '200 {"job":'"$id"',"state":"done","cancel":true}' "$r"
check_eq "cancel of no job: 404" 404 "$(status "$(req POST "/api/job/cancel?id=999" "X-Traza-Token:$tok")")"
check_eq "job of no id: 404" 404 "$(status "$(req GET "/api/job?id=999")")"

r=$(req POST "/api/results/delete?trace=gen&name=s0" "X-Traza-Token:$tok")
check_eq "delete: 200" 200 "$(status "$r")"
case "$("$TRAZA" results gen)" in *" s0 "*) fail "traza results no longer lists s0" "$("$TRAZA" results gen)" ;; *) pass "traza results no longer lists s0" ;; esac
check_eq "delete of no result: 404" 404 "$(status "$(req POST "/api/results/delete?trace=gen&name=s0" "X-Traza-Token:$tok")")"

stop_server TERM
check_eq "serve stops cleanly" 0 "$RC"

# a plugin's tool is offered and runs like a built-in one
plugins=${TRAZA_BUILD:-}/plugins
if [ -f "$plugins/category_count.so" ]; then
  TRAZA_PLUGIN_PATH=$plugins start_server
  tok=$(req GET / | sed -n 's/.*<meta name="traza-token" content="\([0-9a-f]*\)">.*/\1/p')
  check_contains "/api/tools lists the plugin's tool" "$(body "$(req GET /api/tools)")" '"name":"category-count"'
  r=$(req POST "/api/run?tool=category-count&trace=gen&name=cats" "X-Traza-Token:$tok")
  wait_job "$(body "$r" | json_get job)"
  check_eq "the plugin's run saves its result" "done cats" "$(printf '%s' "$JOB" | python3 -c 'import json,sys; j=json.load(sys.stdin); print(j["state"], j["result"])')"
  stop_server TERM
  check_contains "traza results lists the plugin's result" "$("$TRAZA" results gen)" "cats"
else
  skip "a plugin's tool over HTTP" "$plugins/category_count.so is not built"
fi
