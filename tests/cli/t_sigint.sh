#!/usr/bin/env bash
# The first SIGINT stops a long command's work through the context's stop
# (doc/architecture.md, "Cancellation"): `traza gen` fails with "cancelled" and leaves
# the workspace unchanged.
. "$(dirname "$0")/../lib.sh"

# SIGINT after 1.5 s (SIGKILL 10 s later: a command that did not stop)
timeout --preserve-status -s INT -k 10 1.5 "$TRAZA" gen --name big --events 200M -q >"$TMP/gen.out" 2>&1
rc=$?
check_eq "the interrupted generation exits with a failure" 1 "$rc"
check_contains "it says it was cancelled" "$(cat "$TMP/gen.out")" "generation cancelled"
check_contains "the workspace is unchanged" "$("$TRAZA" list 2>&1)" "no traces"


# Queries take it too (the filter builder gives them the stop): a regex over every
# event of 3 M, and a count of a parameter condition, stopped after 0.5 s.
"$TRAZA" gen --name q --events 3M --params 1 --seed 1 -q >/dev/null 2>&1 || fail "gen q"
timeout --preserve-status -s INT -k 10 0.5 "$TRAZA" query q --regex 'p0~^1.*9$' --count >"$TMP/q.out" 2>&1
check_eq "an interrupted query exits with a failure" 1 "$?"
# stopped between two matches ("after N events were read") or while the store looks
# for the next one, whichever the signal meets
check_contains "it says it was stopped" "$(cat "$TMP/q.out")" "traza: the query was stopped "
timeout --preserve-status -s INT -k 10 0.5 "$TRAZA" stats q --where 'p0>5' --regex 'type~state' >"$TMP/s.out" 2>&1
check_eq "interrupted stats exit with a failure" 1 "$?"
check_contains "they say they were stopped" "$(cat "$TMP/s.out")" "stopped"
check_eq "the trace is intact" 3000000 "$("$TRAZA" info q --json | json_get events)"
