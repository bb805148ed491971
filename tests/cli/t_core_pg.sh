#!/usr/bin/env bash
# tests/cli/t_core.sh again, with the workspace in a fresh PostgreSQL database of the
# test server tests/run.sh starts (TRAZA_PG_URI). Skips visibly without it.
set -u
: "${TRAZA:?run through tests/run.sh (TRAZA is the traza binary)}"
if [ -z "${TRAZA_PG_URI:-}" ] || ! command -v psql >/dev/null; then
  echo "SKIP: t_core on PostgreSQL (no test server: TRAZA_PG_URI unset or psql missing)"
  exit 0
fi
db=tz_cli_$$
# TRAZA_PG_URI is postgresql://[authority]/DB?params: swap DB for a fresh one
base=${TRAZA_PG_URI%%\?*}; params=${TRAZA_PG_URI#"$base"}
uri="${base%/*}/$db$params"
psql -q "$TRAZA_PG_URI" -c "CREATE DATABASE $db" >/dev/null || { echo "FAIL: cannot create database $db"; exit 1; }
trap 'psql -q "$TRAZA_PG_URI" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1' EXIT
TRAZA_TEST_WORKSPACE=$uri bash tests/cli/t_core.sh | sed 's/^\(PASS\|FAIL\|SKIP\): /\1: [pg] /'
"$TRAZA" -w "$uri" list --json >/dev/null && echo "PASS: [pg] -w postgresql:// selects the backend" ||
  echo "FAIL: [pg] -w postgresql:// selects the backend"
