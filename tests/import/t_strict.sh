#!/usr/bin/env bash
# Complete or loud, for every importer: a small input with one skippable thing imports
# with the exact warning and count on stderr and the trace parameter skipped.KEY;
# with --strict the import fails (exit 1) with the same words and changes nothing.
. "$(dirname "$0")/../lib.sh"

n=0
# strict_case LABEL FILE KEY COUNT TEXT [IMPORT OPTIONS...]: TEXT follows "skipped COUNT ".
strict_case() {
  local label=$1 file=$2 key=$3 count=$4 text=$5; shift 5
  n=$((n + 1))
  check_rc "$label: imports with the skip" 0 "$TRAZA" import "$file" --name "s$n" "$@"
  check_contains "$label: warning" "$OUT" "$file: skipped $count $text"
  local got
  got=$("$TRAZA" info "s$n" --json 2>&1 | python3 -c 'import json,sys; print(json.load(sys.stdin)["params"].get(sys.argv[1], "absent"))' "skipped.$key" 2>&1)
  check_eq "$label: info skipped.$key" "$count" "$got"
  local before
  before=$("$TRAZA" list --json)
  check_rc "$label: --strict fails" 1 "$TRAZA" import "$file" --name "strict$n" --strict "$@"
  check_contains "$label: --strict says what" "$OUT" "$file: a strict import takes every event: skipped $count $text"
  check_eq "$label: --strict changes nothing" "$before" "$("$TRAZA" list --json)"
}

# trace-cmd: one record of an event id that the file does not describe.
if has_feature trace-cmd; then
  python3 "$(dirname "$0")/mkdat.py" "$TMP/unknown.dat" unknown
  strict_case "trace-cmd" "$TMP/unknown.dat" records 1 "records of event ids the file does not describe"
else
  skip "trace-cmd" "this traza was built without trace-cmd"
fi

# CTF: events the tracer discarded (babeltrace2 reports 728 in this recording).
K=$DATA/babeltrace-ctf/multi-domains/kernel
if [ -d "$K" ] && has_feature ctf; then
  strict_case "ctf" "$K" discarded_events 728 "events the tracer discarded"
else
  skip "ctf" "shared data or this traza's ctf feature absent"
fi

# CSV: a column that the --map does not use (its 2 values).
printf '1,a,p,5\n2,b,p,6\n' >"$TMP/extra.csv"
strict_case "csv" "$TMP/extra.csv" unmapped_values 2 "values in columns the map does not use" --format csv --map ts=0,type=1,producer=2

# Pajé: an event sent to a container already destroyed (pj_dump ignores it).
printf '%s\n' '%EventDef PajeDefineContainerType 0' '% Alias string' '% Type string' '% Name string' '%EndEventDef' \
  '%EventDef PajeCreateContainer 1' '% Time date' '% Alias string' '% Type string' '% Container string' '% Name string' '%EndEventDef' \
  '%EventDef PajeDefineEventType 2' '% Alias string' '% Type string' '% Name string' '%EndEventDef' \
  '%EventDef PajeNewEvent 3' '% Time date' '% Type string' '% Container string' '% Value string' '%EndEventDef' \
  '%EventDef PajeDestroyContainer 4' '% Time date' '% Type string' '% Name string' '%EndEventDef' \
  '0 CT 0 "Core"' '1 0.0 c0 CT 0 "core0"' '1 0.0 c1 CT 0 "core1"' '2 E CT "tick"' \
  '3 1.0 E c0 a' '3 1.0 E c1 a' '4 2.0 CT c0' '3 3.0 E c0 late' >"$TMP/dead.paje"
strict_case "paje" "$TMP/dead.paje" destroyed_container_events 1 "events sent to destroyed containers (as pj_dump ignores them)"

# pj_dump: a user-defined field (pj_dump -u) after an event's standard ones.
printf 'Container, 0, 0, 0.000000, 2.000000, 2.000000, 0\nContainer, 0, CT, 0.000000, 2.000000, 2.000000, c0\nEvent, c0, E, 1.000000, a, extra\n' >"$TMP/user.pjdump"
strict_case "pjdump" "$TMP/user.pjdump" user_fields 1 "user-defined fields after the standard ones (pj_dump -u)" --format pjdump

# uftrace: 3 bytes after the last whole 16-byte record of a thread.
mkdir -p "$TMP/uf/uftrace.data"
python3 - "$TMP/uf/uftrace.data" <<'PY'
import struct, sys
d = sys.argv[1]
text = b"exename:/bin/app\ntaskinfo:lines=2\ntaskinfo:nr_tid=1\ntaskinfo:tids=100\n"
info = bytearray(b"Ftrace!\0" + bytes(32))
info[8], info[12], info[14], info[15], info[16] = 4, 40, 1, 2, 0x22
open(d + "/info", "wb").write(bytes(info) + text)
open(d + "/task.txt", "w").write('SESS timestamp=1.0 pid=100 sid=abc exename="/bin/app"\nTASK timestamp=1.0 tid=100 pid=100\n')
open(d + "/sid-abc.map", "w").write("00400000-00500000 r-xp 00000000 00:00 0      /bin/app\n")
open(d + "/app.sym", "w").write("0000000000001000 00000100 T main\n")
rec = lambda t, typ, depth, addr: struct.pack("<QQ", t, typ | 5 << 3 | depth << 6 | addr << 16)
open(d + "/100.dat", "wb").write(rec(10, 0, 0, 0x401000) + rec(20, 1, 0, 0x401000) + b"\1\2\3")
PY
strict_case "uftrace" "$TMP/uf/uftrace.data" trailing_bytes 3 "trailing bytes after the last whole 16-byte record of a thread"
U=$DATA/uftrace-redisgraph-aarch64/uftrace.data
if [ -d "$U" ]; then
  strict_case "uftrace redis" "$U" missing_tasks 1 "tasks the recording lists without their record file (1072100): their threads are not in the trace"
else
  skip "uftrace redis" "shared data absent"
fi

# Perfetto: an instant ending flow 99, which no event starts (a second instant is whole).
python3 - "$TMP/flow.pftrace" <<'PY'
import struct, sys
def varint(v):
    o = b''
    while True:
        b, v = v & 0x7f, v >> 7
        if not v:
            return o + bytes([b])
        o += bytes([b | 0x80])
def fld(n, wt, p):
    k = varint(n << 3 | wt)
    return k + (varint(p) if wt == 0 else struct.pack('<Q', p) if wt == 1 else varint(len(p)) + p)
def packet(body):
    return fld(1, 2, body)
track = fld(60, 2, fld(1, 0, 7) + fld(2, 2, b'main'))
instant = lambda ts, extra: fld(8, 0, ts) + fld(10, 0, 1) + fld(11, 2, fld(9, 0, 3) + fld(11, 0, 7) + fld(23, 2, b'tick') + extra)
open(sys.argv[1], 'wb').write(packet(track) + packet(instant(1000, b'')) + packet(instant(2000, fld(48, 1, 99))))
PY
strict_case "perfetto" "$TMP/flow.pftrace" unmatched_flows 1 "flows that start and never end or end and never start (no link)"

# ETM: every element kind the shared snapshots decode to is imported, so --strict
# succeeds on them (tests/formats/t_etm.sh checks it, with the counts per type).
E=$DATA/opencsd/snapshots/juno-uname-002
if [ -d "$E" ] && has_feature etm; then
  check_rc "etm: --strict takes the whole snapshot" 0 "$TRAZA" import "$E" --name etm-strict --strict
else
  skip "etm" "shared data or this traza's etm feature absent"
fi
