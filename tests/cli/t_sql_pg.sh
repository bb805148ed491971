#!/usr/bin/env bash
# tests/cli/t_sql.sh and t_meta.sh again, with the workspace in a fresh PostgreSQL
# database of the test server tests/run.sh starts (TRAZA_PG_URI). Skips visibly
# without it.
set -u
: "${TRAZA:?run through tests/run.sh (TRAZA is the traza binary)}"
if [ -z "${TRAZA_PG_URI:-}" ] || ! command -v psql >/dev/null; then
  echo "SKIP: t_sql and t_meta on PostgreSQL (no test server: TRAZA_PG_URI unset or psql missing)"
  exit 0
fi
base=${TRAZA_PG_URI%%\?*}; params=${TRAZA_PG_URI#"$base"}
dbs=()
trap 'for d in "${dbs[@]}"; do psql -q "$TRAZA_PG_URI" -c "DROP DATABASE IF EXISTS $d WITH (FORCE)" >/dev/null 2>&1; done' EXIT
for t in sql meta; do
  db=tz_${t}_$$
  psql -q "$TRAZA_PG_URI" -c "CREATE DATABASE $db" >/dev/null || { echo "FAIL: cannot create database $db"; exit 1; }
  dbs+=("$db")
  TRAZA_TEST_WORKSPACE="${base%/*}/$db$params" bash "tests/cli/t_$t.sh" | sed 's/^\(PASS\|FAIL\|SKIP\): /\1: [pg] /'
done
