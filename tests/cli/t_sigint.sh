#!/usr/bin/env bash
# The first SIGINT stops a long command's work through the context's stop
# (doc/architecture.md, "Cancellation"): `traza gen` fails with "cancelled" and leaves
# the workspace unchanged.
. "$(dirname "$0")/../lib.sh"

# interrupt SECS OUT CMD...: runs CMD with its output in OUT, sends it one SIGINT after
# SECS seconds (SIGKILL 10 s later: a command that did not stop) and returns its status.
# Not `timeout -s INT`: it signals the child and then its own process group, so the
# child can get two SIGINTs, and the second one ends it at once (by design: the
# handler resets itself).
interrupt() {
  local secs=$1 out=$2; shift 2
  "$@" >"$out" 2>&1 &
  local pid=$! rc
  sleep "$secs"
  kill -INT "$pid" 2>/dev/null
  ( sleep 10; kill -KILL "$pid" 2>/dev/null ) &
  local guard=$!
  wait "$pid"; rc=$?
  kill "$guard" 2>/dev/null; wait "$guard" 2>/dev/null
  return "$rc"
}

interrupt 1.5 "$TMP/gen.out" "$TRAZA" gen --name big --events 200M -q
rc=$?
check_eq "the interrupted generation exits with a failure" 1 "$rc"
check_contains "it says it was cancelled" "$(cat "$TMP/gen.out")" "generation cancelled"
check_contains "the workspace is unchanged" "$("$TRAZA" list 2>&1)" "no traces"


# Queries take it too (the filter builder gives them the stop): a regex over every
# event of 3 M, and a count of a parameter condition, stopped after 0.5 s.
"$TRAZA" gen --name q --events 3M --params 1 --seed 1 -q >/dev/null 2>&1 || fail "gen q"
interrupt 0.5 "$TMP/q.out" "$TRAZA" query q --regex 'p0~^1.*9$' --count
check_eq "an interrupted query exits with a failure" 1 "$?"
# stopped between two matches ("after N events were read") or while the store looks
# for the next one, whichever the signal meets
check_contains "it says it was stopped" "$(cat "$TMP/q.out")" "traza: the query was stopped "
interrupt 0.5 "$TMP/s.out" "$TRAZA" stats q --where 'p0>5' --regex 'type~state'
check_eq "interrupted stats exit with a failure" 1 "$?"
check_contains "they say they were stopped" "$(cat "$TMP/s.out")" "stopped"
check_eq "the trace is intact" 3000000 "$("$TRAZA" info q --json | json_get events)"
