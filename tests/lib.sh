# Shell helpers for command-line tests (tests/<area>/t_*.sh), sourced by each test.
# Each check prints "PASS: name", "FAIL: name" (with details) or "SKIP: name (why)";
# tests/run.sh counts those lines.
set -u
: "${TRAZA:?run through tests/run.sh (TRAZA is the traza binary)}"
TMP=$(mktemp -d /tmp/traza-sh-XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# TRAZA_TEST_WORKSPACE: run the same script on another workspace (e.g. PostgreSQL).
export TRAZA_WORKSPACE=${TRAZA_TEST_WORKSPACE:-$TMP/ws}
DATA=${TRAZA_TEST_DATA:-../shared/data}

pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1"; shift; [ $# -gt 0 ] && printf '  %s\n' "$@"; return 0; }
skip() { echo "SKIP: $1 ($2)"; }

# Differential suite: a test comparing traza with a format's reference tool writes one
# row per sample compared into $TRAZA_BUILD/differential/AREA_SCRIPT.tsv (emptied when
# the script starts); tests/diff_summary.sh prints them all as one table.
DIFF_ROWS=${TRAZA_BUILD:+$TRAZA_BUILD/differential/$(basename "$(dirname "$0")")_$(basename "$0" .sh).tsv}
[ -n "$DIFF_ROWS" ] && mkdir -p "${DIFF_ROWS%/*}" && : >"$DIFF_ROWS"
# diff_row FORMAT TOOL SAMPLE COMPARED RESULT: COMPARED = the events (or entities)
# the tool and traza were compared on, RESULT = agree or differ.
diff_row() {
  [ -n "$DIFF_ROWS" ] && printf '%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$DIFF_ROWS"
  return 0
}
# check_diff NAME FORMAT TOOL SAMPLE EXPECTED ACTUAL: check_eq of the tool's count
# (EXPECTED) and traza's (ACTUAL), and its row.
check_diff() {
  check_eq "$1" "$5" "$6"
  if [ "$5" == "$6" ]; then diff_row "$2" "$3" "$4" "$5" agree; else diff_row "$2" "$3" "$4" "$5 vs $6" differ; fi
}

# check_eq NAME EXPECTED ACTUAL
check_eq() {
  if [ "$2" == "$3" ]; then pass "$1"; else fail "$1" "expected: $2" "actual:   $3"; fi
}
# check_contains NAME HAYSTACK NEEDLE
check_contains() {
  case "$2" in *"$3"*) pass "$1" ;; *) fail "$1" "output does not contain: $3" "output: $(printf '%s' "$2" | head -c 600)" ;; esac
}
# check_rc NAME EXPECTED_RC CMD...: runs CMD, compares its exit status; output in $OUT
check_rc() {
  local name=$1 want=$2; shift 2
  OUT=$("$@" 2>&1); local rc=$?
  if [ "$rc" -eq "$want" ]; then pass "$name"; else fail "$name" "exit $rc, expected $want: $*" "$(printf '%s' "$OUT" | head -c 600)"; fi
}
# jq-free JSON field read through python3 (present on Debian images used here).
json_get() { python3 -c 'import json,sys; d=json.load(sys.stdin); 
for k in sys.argv[1].split("."):
    d = d[int(k)] if isinstance(d, list) else d[k]
print(d if not isinstance(d,(dict,list)) else json.dumps(d, sort_keys=True))' "$1"; }

# trace_rows NAME: the trace's events, one per line: "TS TYPE PRODUCER k=v..." with
# the parameters sorted by name (for exact comparisons of what an import wrote).
trace_rows() { "$TRAZA" query "$1" --json --limit 0 | python3 -c '
import json, sys
for e in json.load(sys.stdin):
    ps = " ".join("%s=%s" % kv for kv in sorted((e.get("params") or {}).items()))
    print(e["ts"], e["type"], e["producer"], ps)'; }
# import_fails NAME FILE-CONTENT EXPECTED [IMPORT OPTIONS...]: the content written to
# $TMP/NAME fails to import, with EXPECTED in the message.
import_fails() {
  printf '%b' "$2" >"$TMP/$1"
  check_rc "$1: the import fails" 1 "$TRAZA" import "$TMP/$1" --name bad "${@:4}"
  check_contains "$1: the error says where and what was expected" "$OUT" "$3"
}

# start_server [SERVE OPTIONS...]: `traza serve` on an ephemeral loopback port in the
# background -> $PID, $PORT (empty when it did not start; its output is $TMP/serve.out).
start_server() {
  need_feature serve "traza serve"
  rm -f "$TMP/port"
  "$TRAZA" serve --listen 127.0.0.1:0 --port-file "$TMP/port" "$@" >"$TMP/serve.out" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do [ -s "$TMP/port" ] && break; sleep 0.1; done
  PORT=$(cat "$TMP/port" 2>/dev/null)
}
# stop_server SIG: signals the server and waits for it (SIGKILL after 15 s)
# -> $RC (its exit status), $SECS (time it took to exit).
stop_server() {
  local t0=$(date +%s.%N)
  kill -"$1" "$PID" 2>/dev/null
  for _ in $(seq 1 150); do kill -0 "$PID" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$PID" 2>/dev/null && kill -9 "$PID"
  wait "$PID"; RC=$?
  SECS=$(python3 -c "import sys; print(round($(date +%s.%N) - $t0, 1))")
}
# has_feature FEATURE: whether this traza was built with FEATURE (`traza --version`
# lists "+ctf" or "-ctf"...: "-" when its library's development files were missing, see
# the Makefile's FEATURES); need_feature FEATURE NAME exits the test with a SKIP line
# when it was not.
has_feature() { case " $("$TRAZA" --version | sed -n 's/^features://p') " in *" +$1 "*) return 0 ;; esac; return 1; }
need_feature() { has_feature "$1" || { skip "$2" "this traza was built without $1 (traza --version)"; exit 0; }; }
# need_browser NAME: exits the test with a SKIP line when Chromium or Playwright is absent.
need_browser() {
  if [ ! -x /usr/bin/chromium ]; then
    skip "$1" "chromium is not installed (apt-get install chromium)"; exit 0
  fi
  if ! command -v node >/dev/null || [ ! -d "$TRAZA_SRC/web/node_modules/playwright-core" ]; then
    skip "$1" "node or web/node_modules/playwright-core missing (make runs npm ci in web/)"; exit 0
  fi
}
# browser_run NAME SCRIPT [ARGS...]: a browser test of the web UI (need_browser first):
# node web/test/SCRIPT URL SHOTS ARGS... against a server started for it (screenshots
# in $TRAZA_BUILD/web-test), its PASS:/FAIL: lines, then the server stopped and
# checked to stop cleanly.
browser_run() {
  local shots=${TRAZA_BUILD:-$TRAZA_SRC/build}/web-test brc
  start_server
  mkdir -p "$shots"
  (cd "$TRAZA_SRC/web" && timeout 120 node "test/$2" "http://127.0.0.1:$PORT/" "$shots" "${@:3}") >"$TMP/$1.out" 2>&1
  brc=$?
  cat "$TMP/$1.out"
  [ $brc -eq 0 ] || grep -q '^FAIL: ' "$TMP/$1.out" || fail "$1 browser test exited $brc" "$(tail -20 "$TMP/$1.out")"
  stop_server TERM
  check_eq "serve stops cleanly after the $1 test" 0 "$RC"
}
