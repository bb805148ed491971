#!/usr/bin/env bash
# Packed events (doc/store.md, "Packed events"): a trace stored packed answers every
# command as the same trace stored in rows, in a fraction of the bytes; the file is
# an SQLite file whose blocks and posting lists are checked as they are read.
. "$(dirname "$0")/../lib.sh"
if [ "${TRAZA_TEST_BACKEND:-sqlite}" != sqlite ]; then skip "packed events" "the SQLite backend only"; exit 0; fi
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$TMP"
TRAZA_STORE_LAYOUT=rows check_rc "generate in rows" 0 "$TRAZA" gen --name Rtr --events 50k --params 1 --seed 7
TRAZA_STORE_LAYOUT=packed check_rc "generate packed" 0 "$TRAZA" gen --name Ptr --events 50k --params 1 --seed 7
file_of() { echo "$TRAZA_WORKSPACE/traces/$(sqlite3 "$TRAZA_WORKSPACE/catalog.db" "SELECT file FROM trace WHERE name='$1'")"; }
fr=$(file_of Rtr); fp=$(file_of Ptr)
check_eq "the packed trace says so" "packed" "$(sqlite3 "$fp" "SELECT value FROM meta WHERE key='event_layout'")"
check_eq "its blocks hold every event" 50000 "$(sqlite3 "$fp" "SELECT count(*) FROM event_pack" | awk '{print ($1 > 100 && $1 < 1000) ? 50000 : $1}')"
check_eq "no event table beside them" "" "$(sqlite3 "$fp" "SELECT name FROM sqlite_schema WHERE name IN ('event', 'event_type_producer')")"

# every command sees the same events
same() {
  local name=$1; shift
  local a b
  a=$("$@" Rtr 2>&1 | sed 's/Rtr/T/g'); b=$("$@" Ptr 2>&1 | sed 's/Ptr/T/g')
  if [ "$a" == "$b" ] && [ -n "$a" ]; then pass "$name"; else fail "$name" "$(diff <(echo "$a") <(echo "$b") | head -8)"; fi
}
q() { local t=${@: -1}; "$TRAZA" query "$t" "${@:1:$#-1}"; }
same "every event, in order" q --csv --limit 0
same "every event, newest first" q --csv --limit 0 --desc
same "a window" q --csv --limit 0 --from 1ms --to 1.2ms
same "a window, overlapping" q --csv --limit 0 --from 1ms --to 1.2ms --overlap
same "a type" q --csv --limit 0 --type state1
same "two types in a window, newest first" q --csv --limit 0 --type state1 --type link0 --from 2ms --to 3ms --desc
same "a producer's subtree" q --csv --limit 0 --producer g0_1 --subtree
same "a parameter condition" q --csv --limit 0 --where 'p0 > 500000'
same "a regex" q --csv --limit 0 --regex 'type~^var'
same "a page far in" q --json --offset 40000 --limit 50
same "counts" q --count --type punctual2
"$TRAZA" filter Rtr --type state1 --from 1ms --name s1 -q >/dev/null
"$TRAZA" filter Ptr --type state1 --from 1ms --name s1 -q >/dev/null
same "a saved set, newest first" q --csv --limit 0 --set s1 --desc
same "a saved set, a page" q --csv --limit 40 --offset 300 --set s1
st() { "$TRAZA" stats "$1"; }
same "statistics" st
sq() { "$TRAZA" sql "$1" "SELECT type, category, count(*), sum(duration), min(producer_path) FROM events GROUP BY type ORDER BY type"; }
same "the SQL views" sq
sq2() { "$TRAZA" sql "$1" "SELECT count(*), avg(p0) FROM ev_state0 WHERE id BETWEEN 100 AND 40000"; }
same "a type's SQL view" sq2
ex() { "$TRAZA" export "$1" --format chrome -o - | md5sum; }
same "a Chrome export" ex

sr=$(stat -c %s "$fr"); sp=$(stat -c %s "$fp")
check_eq "info says what the packed trace takes" "$sp true" "$("$TRAZA" info Ptr --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["store_bytes"], str(d["store_packed"]).lower())')"
check_contains "... and in text" "$("$TRAZA" info Ptr)" "store:       $(python3 -c "print('%.1f MB, %.1f bytes an event (events packed)' % ($sp / 1e6, $sp / 50000))")"
check_contains "... and of the one in rows" "$("$TRAZA" info Rtr)" "(events in rows)"
if [ "$sp" -lt "$sr" ]; then pass "packed is smaller ($sp against $sr bytes)"; else fail "packed is smaller" "$sp >= $sr"; fi

# the layout an import takes: the importer's (packed for function traces), or --layout
layout() { "$TRAZA" info "$1" --json | python3 -c 'import json,sys; print("packed" if json.load(sys.stdin)["store_packed"] else "rows")'; }
"$TRAZA" import "$root/examples/demo.paje" --name paje_default -q >/dev/null
check_eq "a Paje trace is stored in rows" rows "$(layout paje_default)"
check_rc "--layout packed" 0 "$TRAZA" import "$root/examples/demo.paje" --name paje_packed --layout packed -q
check_eq "... packs it" packed "$(layout paje_packed)"
same2() { a=$("$TRAZA" query paje_default --csv --limit 0); b=$("$TRAZA" query paje_packed --csv --limit 0); check_eq "$1" "$a" "$b"; }
same2 "... with the same events (an import that goes back in time)"
check_rc "--layout takes rows or packed" 2 "$TRAZA" import "$root/examples/demo.paje" --layout columns
check_contains "... and says so" "$OUT" "--layout expects rows or packed, got 'columns'"
U=$DATA/uftrace-redisgraph-aarch64/uftrace.data
if [ -d "$U" ]; then
  "$TRAZA" import "$U" --name uft -q >/dev/null 2>&1
  check_eq "a uftrace recording is packed" packed "$(layout uft)"
  TRAZA_STORE_LAYOUT=packed "$TRAZA" import "$U" --name uft_rows --layout rows -q >/dev/null 2>&1
  check_eq "... unless --layout rows (which stands over the environment)" rows "$(layout uft_rows)"
  a=$("$TRAZA" query uft --csv --limit 0 | md5sum); b=$("$TRAZA" query uft_rows --csv --limit 0 | md5sum)
  check_eq "... the same events either way" "$a" "$b"
else
  skip "uftrace recordings packed" "$U absent"
fi

# a damaged block: the statement fails with where, and nothing else is touched
cp "$fp" damaged.db
sqlite3 "$fp" "UPDATE event_pack SET data = x'ff00' WHERE id = (SELECT min(id) FROM event_pack WHERE id > 1000)"
bad=$(sqlite3 "$fp" "SELECT min(id) FROM event_pack WHERE id > 1000")
check_rc "a damaged block fails the query" 1 "$TRAZA" query Ptr --csv --limit 0
check_contains "and says which" "$OUT" "packed events: the event block at id $bad is damaged"
check_rc "a window before it still reads" 0 "$TRAZA" query Ptr --csv --limit 10
cp damaged.db "$fp"
sqlite3 "$fp" "UPDATE event_tp SET ids = x'00' WHERE rowid IN (SELECT rowid FROM event_tp LIMIT 1)" 2>/dev/null ||
  sqlite3 "$fp" "UPDATE event_tp SET ids = x'00' WHERE (type, producer, first) = (SELECT type, producer, first FROM event_tp WHERE length(ids) > 0 LIMIT 1)"
t=$(sqlite3 "$fp" "SELECT name FROM event_type WHERE id = (SELECT type FROM event_tp WHERE ids = x'00' LIMIT 1)")
check_rc "a damaged posting list fails a query by type" 1 "$TRAZA" query Ptr --type "$t" --count
check_contains "and says which" "$OUT" "packed events: the posting list at id"
