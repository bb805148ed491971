#!/usr/bin/env bash
# A traza killed mid-import leaves no PostgreSQL backend working for it: the server
# notices the lost client within a few seconds (client_connection_check_interval, set
# by src/store/pg_catalog.c). The import is held mid-way on a lock another session
# keeps, so its backend is busy in a statement when traza is killed. Run by
# t_kill_pg.sh on a fresh database of the test server.
. tests/lib.sh
if [ "${TRAZA_TEST_BACKEND:-}" != postgresql ]; then
  skip "killed import" "PostgreSQL only: run through tests/cli/t_kill_pg.sh"
  exit 0
fi
uri=$TRAZA_WORKSPACE
holder=
trap 'kill "$holder" 2>/dev/null; rm -rf "$TMP"' EXIT
check_rc "a workspace" 0 "$TRAZA" import examples/demo.kptrace --name first -q
# backends of traza waiting in a statement (not this psql, not the lock holder)
waiting() { psql -Atq "$uri" -c "SELECT count(*) FROM pg_stat_activity WHERE datname=current_database() AND state='active'
  AND wait_event_type='Lock' AND backend_type='client backend'"; }
psql -q "$uri" -c "BEGIN; LOCK TABLE traza.trace IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(60); COMMIT;" >/dev/null 2>&1 &
holder=$!
for _ in $(seq 1 100); do
  [ "$(psql -Atq "$uri" -c "SELECT count(*) FROM pg_locks WHERE relation='traza.trace'::regclass
    AND mode='AccessExclusiveLock' AND granted")" = 1 ] && break; sleep 0.1
done
"$TRAZA" import examples/demo.kptrace --name second -q >/dev/null 2>&1 &
pid=$!
n=0
for _ in $(seq 1 100); do n=$(waiting); [ "$n" = 1 ] && break; sleep 0.1; done
check_eq "the import waits in a statement" 1 "$n"
kill -9 "$pid"; wait "$pid" 2>/dev/null
for _ in $(seq 1 50); do n=$(waiting); [ "$n" = 0 ] && break; sleep 0.1; done
check_eq "its backend ends within 5 s of the kill" 0 "$n"
psql -q "$uri" -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname=current_database()
  AND query LIKE 'BEGIN; LOCK TABLE%'" >/dev/null
wait "$holder" 2>/dev/null
check_rc "the workspace still lists" 0 "$TRAZA" list --json
check_eq "with the first trace only" '["first"]' "$(printf '%s' "$OUT" | python3 -c 'import json,sys; print(json.dumps([t["name"] for t in json.load(sys.stdin)]))')"
