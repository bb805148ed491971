#!/usr/bin/env bash
# PostgreSQL store backend against the SQLite one, on the same generated traces.
#
#   bash bench/pg.sh [TRAZA_BINARY | BUILD_DIR]   (EVENTS=1000000, PARAMS_EVENTS=200000)
#
# Uses TRAZA_PG_URI (postgresql://.../db) when set, otherwise starts a throwaway server
# with tests/pg_server.sh (fsync off, Unix socket; the SQLite side also runs without
# journal or sync during its load, and fsyncs once at the end).
# 1. import throughput: `traza import` of the same `traza gen` CSV (no parameters) into
#    a SQLite workspace and into PostgreSQL; ratio = PostgreSQL time / SQLite time.
# 2. the same with 4 parameters per event, written straight by `traza gen --params 4`.
# 3. ~10 000-event time window (bench/window.c, best of 7; traza_query and traza_scan) on the trace of step 1;
#    ratio = PostgreSQL / SQLite.
# 4. full scans (traza_scan: the backends' s_open/s_next) through the analyses on the
#    trace of step 1: `traza stats` (one scan), `traza anomaly --type state0` (series
#    load), `traza aggregate --slices 100`; ratio = PostgreSQL / SQLite. With
#    TRAZA_BEFORE=<an older traza binary> the PostgreSQL side is also timed with it
#    (e.g. one without the PostgreSQL s_open/s_next, which scans through q_open/q_next).
set -eu
cd "$(dirname "$0")/.."
TRAZA=${1:-build/traza}
[ -d "$TRAZA" ] && TRAZA=$TRAZA/traza
LIBDIR=$(dirname "$TRAZA")
EVENTS=${EVENTS:-1000000}
PEVENTS=${PARAMS_EVENTS:-200000}
D=$(mktemp -d /tmp/traza-bench-pg-XXXXXX)
chmod 755 "$D"
started=0
cleanup() {
  [ "$started" = 1 ] && bash tests/pg_server.sh stop "$D/srv" >/dev/null 2>&1
  rm -rf "$D"
}
trap cleanup EXIT
now() { date +%s.%N; }
el() { python3 -c "print(f'{$2 - $1:.3f}')"; }

if [ -z "${TRAZA_PG_URI:-}" ]; then
  eval "$(bash tests/pg_server.sh start "$D/srv")" || { echo "bench/pg.sh: cannot start PostgreSQL"; exit 1; }
  started=1
fi
db=tz_bench_$$
base=${TRAZA_PG_URI%%\?*}; params=${TRAZA_PG_URI#"$base"}
PG="${base%/*}/$db$params"
psql -q "$TRAZA_PG_URI" -c "CREATE DATABASE $db" >/dev/null
trap 'psql -q "$TRAZA_PG_URI" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1; cleanup' EXIT
SQ=$D/ws

cc -O2 -std=c11 -Iinclude -o "$D/window" bench/window.c "$LIBDIR/libtraza.a" \
  $(pkg-config --libs sqlite3 libpcre2-8 libzstd liblzma zlib jansson libdw libelf babeltrace2 libpq libmicrohttpd) -lopencsd_c_api -lopencsd -ldl -lpthread -lm

echo "== generating $EVENTS events as CSV (traza gen --seed 1)"
"$TRAZA" gen --events "$EVENTS" --seed 1 -o "$D/ev.csv" -q

ratio() { python3 -c "print(f'{$2 / $1:.2f}')"; }
echo "== 1. traza import of the CSV (no parameters)"
t0=$(now); "$TRAZA" -w "$SQ" import "$D/ev.csv" --name big -q >/dev/null; t1=$(now); s1=$(el "$t0" "$t1")
t0=$(now); "$TRAZA" -w "$PG" import "$D/ev.csv" --name big -q >/dev/null; t1=$(now); p1=$(el "$t0" "$t1")
python3 -c "n=$EVENTS; print(f'   sqlite     : {$s1:8.2f} s  {n/$s1/1e6:6.3f} M events/s'); print(f'   postgresql : {$p1:8.2f} s  {n/$p1/1e6:6.3f} M events/s')"
echo "   ratio postgresql/sqlite time = $(ratio "$s1" "$p1")"

echo "== 2. traza gen --events $PEVENTS --params 4 straight into the store"
t0=$(now); "$TRAZA" -w "$SQ" gen --events "$PEVENTS" --params 4 --name par -q >/dev/null; t1=$(now); s2=$(el "$t0" "$t1")
t0=$(now); "$TRAZA" -w "$PG" gen --events "$PEVENTS" --params 4 --name par -q >/dev/null; t1=$(now); p2=$(el "$t0" "$t1")
python3 -c "n=$PEVENTS; print(f'   sqlite     : {$s2:8.2f} s  {n/$s2/1e6:6.3f} M events/s'); print(f'   postgresql : {$p2:8.2f} s  {n/$p2/1e6:6.3f} M events/s')"
echo "   ratio postgresql/sqlite time = $(ratio "$s2" "$p2")"

echo "== 3. window of ~10000 events in the middle of the $EVENTS-event trace (best of 7)"
# window prints: events, best query ms, best traza_scan ms, and their CPU ms
read -r ns ms_s sc_s _ < <("$D/window" "$SQ" big 10000)
read -r np ms_p sc_p _ < <("$D/window" "$PG" big 10000)
echo "   sqlite     : $ns events in $ms_s ms (traza_query), $sc_s ms (traza_scan)"
echo "   postgresql : $np events in $ms_p ms (traza_query), $sc_p ms (traza_scan)"
echo "   ratio postgresql/sqlite time = $(ratio "$ms_s" "$ms_p") (query), $(ratio "$sc_s" "$sc_p") (scan)"
[ "$ns" = "$np" ] || { echo "   MISMATCH: the backends returned different event counts"; exit 1; }

echo "== 4. analyses = full scans of the $EVENTS-event trace (best of 3)"
best3() { # CMD... -> best wall time of 3 runs in s
  local b=""; for _ in 1 2 3; do
    local t0 t1; t0=$(now); "$@" >/dev/null; t1=$(now)
    b=$(python3 -c "t=$t1-$t0; b='$b'; print(f'{t:.3f}' if b == '' or t < float(b) else b)"); done
  echo "$b"
}
for a in "stats big --json" "anomaly big --type state0 --rule mad --json" "aggregate big --slices 100 --json"; do
  # shellcheck disable=SC2086
  s4=$(best3 "$TRAZA" -w "$SQ" $a); p4=$(best3 "$TRAZA" -w "$PG" $a)
  line="   traza $a: sqlite $s4 s, postgresql $p4 s, ratio $(ratio "$s4" "$p4")"
  if [ -n "${TRAZA_BEFORE:-}" ]; then
    # shellcheck disable=SC2086
    b4=$(best3 "$TRAZA_BEFORE" -w "$PG" $a); line="$line; postgresql with TRAZA_BEFORE $b4 s"
  fi
  echo "$line"
done
