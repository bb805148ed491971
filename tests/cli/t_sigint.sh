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

