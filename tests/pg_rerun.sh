#!/usr/bin/env bash
# Reruns a command-line test script with its workspace in a fresh PostgreSQL database
# of the test server tests/run.sh starts (TRAZA_PG_URI), prefixing its check names
# with "[pg]". Skips visibly without the server.
#   bash tests/pg_rerun.sh tests/<area>/t_<name>.sh
# The rerun script sees TRAZA_TEST_BACKEND=postgresql (for checks that look at
# backend-specific things, e.g. SQLite files).
set -u
: "${TRAZA:?run through tests/run.sh (TRAZA is the traza binary)}"
script=${1:?usage: pg_rerun.sh SCRIPT}
name=$(basename "$script" .sh)
if [ -z "${TRAZA_PG_URI:-}" ] || ! command -v psql >/dev/null; then
  echo "SKIP: ${name#t_} on PostgreSQL (no test server: TRAZA_PG_URI unset or psql missing)"
  exit 0
fi
db=tz_${name#t_}_$$
# TRAZA_PG_URI is postgresql://[authority]/DB?params: swap DB for a fresh one
base=${TRAZA_PG_URI%%\?*}; params=${TRAZA_PG_URI#"$base"}
uri="${base%/*}/$db$params"
psql -q "$TRAZA_PG_URI" -c "CREATE DATABASE $db" >/dev/null || { echo "FAIL: cannot create database $db"; exit 1; }
trap 'psql -q "$TRAZA_PG_URI" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1' EXIT
TRAZA_TEST_WORKSPACE=$uri TRAZA_TEST_BACKEND=postgresql bash "$script" | sed 's/^\(PASS\|FAIL\|SKIP\): /\1: [pg] /'
exit "${PIPESTATUS[0]}"
