#!/usr/bin/env bash
# Import throughput, window retrieval and store size.
#
#   bash bench/import.sh [TRAZA_BINARY]      (EVENTS=10000000 by default; BENCH_DIR=/tmp/...)
#
# 1. traza gen writes a 10 M-event CSV (no parameters).
# 2. In the same run: `traza import` of it, against sqlite3's `.import` of the same CSV
#    into an equivalent table (same 7 columns, same no-journal pragmas) followed by the
#    index traza builds after its load (CREATE INDEX ON (type, producer)); traza also
#    runs ANALYZE and fsyncs, the sqlite3 side does not. Prints events/s and the ratio
#    sqlite3 time / traza time (>= 1.0 means traza is at least as fast).
# 3. Retrieving ~10 000 events in a time window on 1 M and 10 M traces (bench/window.c:
#    times the library calls only, in one process, best of 7), and the ratio 10M/1M;
#    through traza_query (every column) and traza_scan (the analyses' columns).
# 4. Store size in bytes per event (no parameters).
set -eu
cd "$(dirname "$0")/.."
TRAZA=${1:-build/traza}
EVENTS=${EVENTS:-10000000}
D=${BENCH_DIR:-$(mktemp -d /tmp/traza-bench-XXXXXX)}
SQLITE3=${SQLITE3:-sqlite3}
mkdir -p "$D"
trap 'rm -rf "$D"' EXIT
command -v "$SQLITE3" >/dev/null || { echo "bench/import.sh: sqlite3 is missing (apt-get install sqlite3)"; exit 1; }
now() { date +%s.%N; }
el() { python3 -c "print(f'{$2 - $1:.3f}')"; }
# CPU time (user+sys) of a command, into the file $CPU_OUT (the machine may be shared:
# wall time then includes waiting for a core, CPU time does not).
cpu() { local out=$1; shift; /usr/bin/time -f "%U %S" -o "$out" "$@"; }

# the link line of the Makefile: pkg-config modules (libpq has no .pc on Debian) + EXTRA_LIBS
PKGS=$(sed -n 's/^PKGS *:= *//p' Makefile | sed 's/\blibpq\b//')
EXTRA=$(sed -n 's/^EXTRA_LIBS *+= *//p' Makefile | tr '\n' ' ')
LIBA=$(dirname "$TRAZA")/libtraza.a
cc -O2 -std=c11 -Iinclude -o "$D/window" bench/window.c "$LIBA" $(pkg-config --libs $PKGS) $EXTRA -ldl -lpthread -lm

echo "== generating $EVENTS events as CSV"
"$TRAZA" gen --events "$EVENTS" --seed 1 -o "$D/ev.csv" -q
ls -l "$D/ev.csv" | awk '{print "   " $5 " bytes"}'
head -c 300 "$D/ev.csv" | head -3 | sed 's/^/   /'

echo "== traza import"
t0=$(now); cpu "$D/cpu.tz" "$TRAZA" -w "$D/ws" import "$D/ev.csv" --name big -q >/dev/null; t1=$(now)
tz=$(el "$t0" "$t1")
tzc=$(awk '{print $1 + $2}' "$D/cpu.tz")
echo "== sqlite3 .import + CREATE INDEX (type, producer)"
t0=$(now)
cpu "$D/cpu.sq" "$SQLITE3" "$D/ref.db" <<SQL
PRAGMA page_size=4096; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536;
CREATE TABLE event(ts INTEGER, end_ts INTEGER, type TEXT, producer TEXT, end_producer TEXT, cpu INTEGER, value REAL);
.mode csv
.import --skip 1 $D/ev.csv event
CREATE INDEX event_type_producer ON event(type, producer);
SQL
t1=$(now)
sq=$(el "$t0" "$t1")
sqc=$(awk '{print $1 + $2}' "$D/cpu.sq")
nref=$("$SQLITE3" "$D/ref.db" "SELECT count(*) FROM event")
python3 - "$EVENTS" "$tz" "$sq" "$nref" "$tzc" "$sqc" <<'PY'
import sys
n, tz, sq, nref, tzc, sqc = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6])
print(f"   traza import : wall {tz:8.2f} s  {n/tz/1e6:6.3f} M events/s   cpu {tzc:7.2f} s  {n/tzc/1e6:6.3f} M events/cpu-s")
print(f"   sqlite3      : wall {sq:8.2f} s  {nref/sq/1e6:6.3f} M events/s   cpu {sqc:7.2f} s  {nref/sqc/1e6:6.3f} M events/cpu-s  ({nref} rows)")
print(f"   ratio sqlite3/traza = wall {sq/tz:.2f}, cpu {sqc/tzc:.2f}  (target >= 1.0; traza target > 1 M events/s)")
PY

echo "== store size (no parameters)"
size=$(stat -c %s "$D"/ws/traces/*.db)
python3 -c "print(f'   {$size} bytes, {$size/$EVENTS:.1f} bytes/event (target < 40); sqlite3 table+index: {$(stat -c %s "$D/ref.db")/$EVENTS:.1f} bytes/event')"

echo "== window of ~10000 events"
small=$((EVENTS / 10))
"$TRAZA" -w "$D/ws" gen --events "$small" --seed 1 --name small -q >/dev/null
read -r n1 ms1 sc1 cms1 csc1 < <("$D/window" "$D/ws" small 10000 15)
read -r n2 ms2 sc2 cms2 csc2 < <("$D/window" "$D/ws" big 10000 15)
python3 -c "print(f'   traza_query: {$small} events: {$n1} events in {$ms1} ms wall, {$cms1} ms cpu;  {$EVENTS} events: {$n2} events in {$ms2} ms wall, {$cms2} ms cpu;  ratio wall {$ms2/$ms1:.2f} cpu {$cms2/$cms1:.2f} (target < 10 ms, ratio <= 1.3)')"
python3 -c "print(f'   traza_scan : {$small} events: {$sc1} ms wall, {$csc1} ms cpu;  {$EVENTS} events: {$sc2} ms wall, {$csc2} ms cpu;  ratio wall {$sc2/$sc1:.2f} cpu {$csc2/$csc1:.2f}')"
