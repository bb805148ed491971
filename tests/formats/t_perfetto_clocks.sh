#!/usr/bin/env bash
# Perfetto clocks, as Perfetto's trace processor reads them: a packet's timestamp is on
# the clock its timestamp_clock_id names, or its sequence's default clock
# (TracePacketDefaults); ClockSnapshots relate each clock to the trace clock (BOOTTIME);
# an incremental clock (the Perfetto SDK's clock 64) counts deltas in its
# unit_multiplier_ns units; clocks 64-127 belong to their sequence; an event on a clock
# no snapshot relates is counted as skipped, and --strict refuses the trace. Events
# without a track_uuid are on their sequence's default track (TrackEventDefaults).
. "$(dirname "$0")/../lib.sh"

# A tiny protobuf encoder: each message is a list of (field, value); an int is a
# varint, a str/bytes is length-delimited, a list is a nested message.
python3 - "$TMP/clocks.pftrace" <<'PY'
import sys
def varint(v):
    out = bytearray()
    while True:
        b = v & 0x7f; v >>= 7
        out.append(b | (0x80 if v else 0))
        if not v: return bytes(out)
def msg(fields):
    out = bytearray()
    for f, v in fields:
        if isinstance(v, int):
            out += varint(f << 3) + varint(v)
        else:
            b = v.encode() if isinstance(v, str) else (msg(v) if isinstance(v, list) else v)
            out += varint(f << 3 | 2) + varint(len(b)) + b
    return bytes(out)
BEGIN, END, INSTANT = 1, 2, 3
packets = [
    # sequence 1, as the Perfetto SDK writes: clock 64 incremental in microseconds,
    # read at 1000 units while BOOTTIME (6) read 5,000,000 ns; the sequence's
    # packets default to clock 64 and to track 10
    [(10, 1), (6, [(1, [(1, 64), (2, 1000), (3, 1), (4, 1000)]), (1, [(1, 6), (2, 5000000)])]),
     (59, [(58, 64), (11, [(11, 10)])])],
    [(10, 1), (60, [(1, 10), (2, "main")])],
    [(10, 1), (8, 5), (11, [(9, BEGIN), (23, "work")])],    # 1005 us on clock 64
    [(10, 1), (8, 3), (11, [(9, END)])],                    # 1008 us
    # sequence 2: MONOTONIC (3) read 100 while BOOTTIME read 200, then an instant at
    # MONOTONIC 150; then one on clock 65 of sequence 2, which no snapshot relates,
    # and one on clock 64, which is sequence 1's
    [(10, 2), (6, [(1, [(1, 3), (2, 100)]), (1, [(1, 6), (2, 200)])])],
    [(10, 2), (60, [(1, 20), (2, "other")])],
    [(10, 2), (8, 150), (58, 3), (11, [(9, INSTANT), (11, 20), (23, "tick")])],
    [(10, 2), (8, 7), (58, 65), (11, [(9, INSTANT), (11, 20), (23, "lost")])],
    [(10, 2), (8, 7), (58, 64), (11, [(9, INSTANT), (11, 20), (23, "lost")])],
    # no clock named, none by default: the trace clock
    [(10, 3), (8, 6000000), (11, [(9, INSTANT), (11, 20), (23, "plain")])],
]
with open(sys.argv[1], "wb") as f:
    for p in packets:
        b = msg(p)
        f.write(b"\x0a" + varint(len(b)) + b)
PY
check_rc "import with clocks" 0 "$TRAZA" import "$TMP/clocks.pftrace" --name clk
check_contains "the events on related clocks" "$OUT" "imported 'clk' (perfetto): 3 events"
check_contains "the two on unrelated clocks counted" "$OUT" "skipped 2 track events on clocks no clock snapshot relates to the trace clock (the first: clock 65)"
check_rc "query" 0 "$TRAZA" query clk --csv --absolute
check_contains "clock 64, incremental in us, default of its sequence, on its default track" "$OUT" ",5005000,5008000,work,state,main,"
check_contains "MONOTONIC through its snapshot" "$OUT" ",250,,tick,punctual,other,"
check_contains "no clock: the trace clock" "$OUT" ",6000000,,plain,punctual,other,"
check_eq "nothing on an unrelated clock" "" "$(grep lost <<<"$OUT")"
before=$("$TRAZA" list --json)
check_rc "--strict refuses unrelated clocks" 1 "$TRAZA" import "$TMP/clocks.pftrace" --name strict --strict
check_contains "--strict: the count" "$OUT" "2 track events on clocks no clock snapshot relates"
check_eq "a failed strict import changes nothing" "$before" "$("$TRAZA" list --json)"
# without an extension, a trace starting with a clock snapshot is detected
cp "$TMP/clocks.pftrace" "$TMP/noext"
check_rc "detected by content" 0 "$TRAZA" import "$TMP/noext" --name clk2
check_contains "as perfetto" "$OUT" "imported 'clk2' (perfetto): 3 events"
