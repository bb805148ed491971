#!/usr/bin/env bash
# traza sql: the documented views give the numbers the other commands give (counts
# equal `traza query --count` and `traza stats`), in the three output forms; a
# statement that would write is refused and changes nothing; the time budget stops a
# long statement with its message; statements come from stdin too.
# TRAZA_TEST_WORKSPACE runs it on PostgreSQL (tests/cli/t_sql_pg.sh).
. tests/lib.sh

check_rc "gen" 0 "$TRAZA" gen --events 3000 --tree 2x3 --params 2 --seed 5 --name g

# one value of a one-row, one-column result, through --csv
val() { "$TRAZA" sql g "$1" --csv | sed -n 2p | tr -d '\r'; }

check_eq "events: count = query --count" "$("$TRAZA" query g --count)" "$(val 'SELECT count(*) FROM events')"
check_eq "events: count" 3000 "$(val 'SELECT count(*) FROM events')"
check_eq "events by type name = query --type" "$("$TRAZA" query g --type state1 --count)" \
  "$(val "SELECT count(*) FROM events WHERE type = 'state1'")"
check_eq "events by type name" 294 "$(val "SELECT count(*) FROM events WHERE type = 'state1'")"
stats_dur=$("$TRAZA" stats g --json | python3 -c 'import json,sys; print([t["duration"] for t in json.load(sys.stdin)["types"] if t["name"]=="state1"][0])')
check_eq "sum of durations = stats" "$stats_dur" "$(val "SELECT sum(duration) FROM events WHERE type = 'state1'")"
check_eq "sum of durations" 149476 "$(val "SELECT sum(duration) FROM events WHERE type = 'state1'")"
check_eq "producer paths = query --producer --subtree" "$("$TRAZA" query g --producer g0_1 --subtree --count)" \
  "$(val "SELECT count(*) FROM events WHERE producer_path LIKE 'g0_1/%'")"
check_eq "params: a numeric filter = query --where" "$("$TRAZA" query g --where 'p0>500000' --count)" \
  "$(val "SELECT count(*) FROM params WHERE name = 'p0' AND num > 500000")"
check_eq "params: a numeric filter" 1474 "$(val "SELECT count(*) FROM params WHERE name = 'p0' AND num > 500000")"
check_eq "ev_<type>: parameters as columns" 1474 \
  "$(val "SELECT sum(n) FROM (SELECT count(*) AS n FROM ev_state0 WHERE p0 > 500000 UNION ALL
          SELECT count(*) FROM ev_state1 WHERE p0 > 500000 UNION ALL SELECT count(*) FROM ev_state2 WHERE p0 > 500000 UNION ALL
          SELECT count(*) FROM ev_state3 WHERE p0 > 500000 UNION ALL SELECT count(*) FROM ev_punctual0 WHERE p0 > 500000 UNION ALL
          SELECT count(*) FROM ev_punctual1 WHERE p0 > 500000 UNION ALL SELECT count(*) FROM ev_punctual2 WHERE p0 > 500000 UNION ALL
          SELECT count(*) FROM ev_punctual3 WHERE p0 > 500000 UNION ALL SELECT count(*) FROM ev_link0 WHERE p0 > 500000 UNION ALL
          SELECT count(*) FROM ev_variable0 WHERE p0 > 500000) AS per_type")"

check_rc "csv rows" 0 "$TRAZA" sql g 'SELECT id, ts, end_ts, duration, type, category, producer_path, p0, p1 FROM ev_link0 ORDER BY id LIMIT 2' --csv
check_eq "csv rows: exact" "id,ts,end_ts,duration,type,category,producer_path,p0,p1
1,123,379,256,link0,link,g0_0/n2,709860,377.928" "$(printf '%s' "$OUT" | tr -d '\r' | head -2)"
check_rc "json rows" 0 "$TRAZA" sql g "SELECT id, end_ts, producer, p1 FROM ev_punctual3 ORDER BY id LIMIT 1" --json
check_eq "json rows: numbers, null, strings" '[{"id":2,"end_ts":null,"producer":"n1","p1":452.097}]' "$OUT"
check_rc "table" 0 "$TRAZA" sql g "SELECT id, type FROM events ORDER BY id LIMIT 2"
check_eq "table: aligned, with its row count" "id  type
--  ---------
 1  link0
 2  punctual3
(2 rows)" "$OUT"
check_rc "producers and types" 0 "$TRAZA" sql g "SELECT (SELECT count(*) FROM producers), (SELECT path FROM producers WHERE name = 'n3'), (SELECT count(*) FROM types WHERE category = 'state')" --csv
check_eq "producers and types: values" "8,g0_1/n3,4" "$(printf '%s' "$OUT" | tr -d '\r' | sed -n 2p)"

check_rc "filter saves a set" 0 "$TRAZA" filter g --type state1 --name s1
check_eq "results view" "s1,event_set,294" "$(val "SELECT name, kind, size FROM results")"
check_eq "result_events joined to events" 294 \
  "$(val "SELECT count(*) FROM result_events r JOIN events e ON e.id = r.event WHERE e.type = 'state1'")"

# writes are refused, and nothing changes
ro="the SQL session is read-only"
check_rc "DELETE refused" 2 "$TRAZA" sql g 'DELETE FROM event'
check_eq "DELETE refused: message" "traza: $ro: a statement starting with 'DELETE' is refused (SELECT, WITH, VALUES and EXPLAIN read the views)" "$OUT"
check_rc "a WITH that deletes refused" 2 "$TRAZA" sql g 'WITH x AS (SELECT 1) DELETE FROM event WHERE id IN (SELECT 1 FROM x)'
check_contains "a WITH that deletes refused: message" "$OUT" "traza: $ro: the statement would change the store"
check_rc "a second statement refused" 2 "$TRAZA" sql g 'SELECT 1; DROP VIEW events'
check_eq "a second statement refused: message" "traza: one statement at a time: text follows the ';' at offset 8" "$OUT"
check_rc "PRAGMA refused" 2 "$TRAZA" sql g 'PRAGMA query_only = 0'
check_eq "still every event" 3000 "$(val 'SELECT count(*) FROM events')"
check_rc "an SQL error" 2 "$TRAZA" sql g 'SELECT nosuch FROM events'
check_contains "an SQL error: message" "$OUT" "traza: SQL: "

# the time budget
check_rc "budget exceeded" 1 "$TRAZA" sql g 'SELECT count(*) FROM events a, events b, events c' --budget 100ms
check_eq "budget exceeded: message" "traza sql: the SQL statement ran out of its time budget of 100ms (raise it with --budget; 0 for no limit)" "$OUT"
check_rc "bad budget" 2 "$TRAZA" sql g 'SELECT 1' --budget soon

# statements from stdin: each ending with ';', the last one may not
OUT=$(printf "SELECT count(*) AS n FROM types;\n-- a comment; with a ';'\nSELECT name FROM types\n WHERE name = 'a;b' OR id = 0;\nSELECT 7 AS seven" | "$TRAZA" sql g --csv 2>&1 | tr -d '\r')
check_eq "statements from stdin" "n
10
name
punctual0
seven
7" "$OUT"
OUT=$(printf "SELECT 1 AS a;\nDELETE FROM event;\nSELECT 2 AS b;\n" | "$TRAZA" sql g --csv 2>&1 | tr -d '\r')
check_eq "stdin stops at the first error" "a
1
traza: $ro: a statement starting with 'DELETE' is refused (SELECT, WITH, VALUES and EXPLAIN read the views)" "$OUT"

# on a terminal: an interactive shell with prompts that goes on after an error
OUT=$(python3 - "$TRAZA" <<'PY'
import os, pty, signal, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "sql", "g", "--csv"])
signal.signal(signal.SIGALRM, lambda *a: (os.kill(pid, 9), sys.exit("the shell did not end within 30 s")))
signal.alarm(30)
os.write(fd, b"SELECT count(*) AS n\n FROM types;\nDELETE FROM event;\nSELECT 5 AS five;\n.quit\n")
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace("\r", ""))
PY
)
check_contains "shell: prompts and a continued statement" "$OUT" "traza>    ...> n
10
traza> "
check_contains "shell: an error, then the next statement" "$OUT" "is refused (SELECT, WITH, VALUES and EXPLAIN read the views)
traza> five
5
traza> "
